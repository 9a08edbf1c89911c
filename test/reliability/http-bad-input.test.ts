import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type FerretClient, type Json } from '../support/ferret-client.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';

/**
 * HTTP bad input against ONE long-lived `--http` server with FERRET_SERVER_TOKEN set: every bad
 * request gets a 4xx with the `{"error":{"code","message"}}` shape, never a 5xx, and the server
 * keeps serving (a real session's turn still completes at the end of each test).
 */

const TOKEN = 'rel-token-abcdefghijklmnopqrstuvwxyz012345';
const SAME_LENGTH_WRONG = TOKEN.slice(0, -1) + (TOKEN.endsWith('5') ? '6' : '5');
const CHAT = { responses: Array.from({ length: 10 }, (_, i) => ({ chunks: [`reply ${i + 1}`] })) };

interface RawResponse {
  status: number;
  text: string;
  json: Json | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** One HTTP/1.1 request with full control of path (no normalisation), headers (Host included) and body. */
function raw(url: string, method: string, path: string, opts: { headers?: Record<string, string | string[]>; body?: string | Buffer; chunked?: boolean } = {}): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      { host: u.hostname, port: u.port, method, path, headers: opts.headers ?? {}, agent: false },
      (res) => {
        answered = true;
        // An event stream (a generated GET /session/<id>/events with the token) never ends: its
        // status and headers are the answer.
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          resolve({ status: res.statusCode ?? 0, text: '', json: undefined, headers: res.headers });
          res.destroy();
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let json: Json | undefined;
          try {
            json = text ? (JSON.parse(text) as Json) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json, headers: res.headers });
        });
      },
    );
    req.on('error', (e) => {
      if (!answered) reject(e); // the server may answer (413) and close before the whole body is sent
    });
    if (opts.body !== undefined) {
      if (opts.chunked) {
        const b = Buffer.from(opts.body);
        for (let i = 0; i < b.length; i += 64 * 1024) req.write(b.subarray(i, i + 64 * 1024));
      } else req.write(opts.body);
    }
    req.end();
  });
}

/** Writes bytes on a fresh socket and parses the one HTTP response that comes back (Connection: close). */
function rawSocket(url: string, bytes: string): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(u.port), u.hostname, () => sock.write(bytes));
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (buf += d));
    sock.on('error', reject);
    sock.on('close', () => {
      const end = buf.indexOf('\r\n\r\n');
      const head = end >= 0 ? buf.slice(0, end) : buf;
      let body = end >= 0 ? buf.slice(end + 4) : '';
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      if (headers['transfer-encoding'] === 'chunked') {
        let out = '';
        for (let rest = body; ; ) {
          const nl = rest.indexOf('\r\n');
          const n = parseInt(rest.slice(0, nl), 16);
          if (!n) break;
          out += rest.slice(nl + 2, nl + 2 + n);
          rest = rest.slice(nl + 2 + n + 2);
        }
        body = out;
      }
      let json: Json | undefined;
      try {
        json = body ? (JSON.parse(body) as Json) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1] ?? 0), text: body, json, headers });
    });
    setTimeout(() => sock.destroy(), 5000);
  });
}

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { 'content-type': 'application/json' };

function expectErrorShape(r: RawResponse, status: number | [number, number], what: string): void {
  if (Array.isArray(status)) {
    expect(r.status, `${what}: status (body ${r.text.slice(0, 200)})`).toBeGreaterThanOrEqual(status[0]);
    expect(r.status, `${what}: status (body ${r.text.slice(0, 200)})`).toBeLessThanOrEqual(status[1]);
  } else expect(r.status, `${what}: status (body ${r.text.slice(0, 200)})`).toBe(status);
  expect(r.headers['content-type'] ?? '', `${what}: content-type`).toMatch(/^application\/json/);
  expect(r.json, `${what}: body is JSON`).toBeDefined();
  expect(Object.keys(r.json!), `${what}: body has only "error"`).toEqual(['error']);
  expect(typeof r.json!['error']?.code, `${what}: error.code`).toBe('string');
  expect(typeof r.json!['error']?.message, `${what}: error.message`).toBe('string');
  expect(r.headers['access-control-allow-origin'], `${what}: no CORS`).toBeUndefined();
}

describe('reliability: HTTP bad input (one long-lived server, token set)', () => {
  let env: TempEnv;
  let proc: FerretClient;
  let url: string;
  let hostHeader: string;
  let sid: string;
  let turns = 0;

  async function stillServes(): Promise<void> {
    expect(proc.child.exitCode, 'server still running').toBeNull();
    const h = await raw(url, 'GET', '/health', { headers: { host: hostHeader } });
    expect(h.status).toBe(200);
    const r = await raw(url, 'POST', `/session/${sid}/message`, { headers: { ...auth, ...json, host: hostHeader }, body: JSON.stringify({ text: 'ping' }) });
    expect(r.status, r.text).toBe(200);
    expect(r.json?.['message']).toEqual({ role: 'assistant', text: `reply ${++turns}` });
    expect(proc.stderr, 'no uncaught errors logged').not.toMatch(/uncaught|unhandled/i);
  }

  beforeAll(async () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'model.json', CHAT);
    ({ proc, url } = await startHttp(['--cwd', env.ws, '--model', `scripted:${model}`], { CHIMERA_HOME: env.home, FERRET_SERVER_TOKEN: TOKEN }));
    hostHeader = new URL(url).host;
    const s = await raw(url, 'POST', '/session', { headers: { ...auth, ...json }, body: '{}' });
    expect(s.status).toBe(201);
    sid = s.json!['sessionId'] as string;
  });

  afterAll(async () => {
    if (proc) await proc.stop();
    env?.cleanup();
  });

  const postRoutes = (id: string): string[] => ['/session', `/session/${id}/message`, `/session/${id}/mode`, `/session/${id}/model`, `/session/${id}/approval`, `/session/${id}/permission`];

  it('malformed JSON bodies on every POST route answer 400 invalid_params in the error shape', async () => {
    const bodies = ['{', '{"text":', 'not json', '{"text":"a",}', "{'text':'a'}", '\u0000', '[1,2', 'nul', '{"text":"\\x"}', '"unterminated'];
    for (const path of postRoutes(sid)) {
      for (const body of bodies) {
        const r = await raw(url, 'POST', path, { headers: { ...auth, ...json }, body });
        expectErrorShape(r, 400, `POST ${path} ${JSON.stringify(body)}`);
        expect(r.json!['error'].code).toBe('invalid_params');
      }
      // Valid JSON of the wrong type or shape: a 400 that names the field.
      for (const body of ['[]', '42', '"text"', 'null', '{"text":5}', '{"mode":["plan"]}', '{"preset":{}}']) {
        const r = await raw(url, 'POST', path, { headers: { ...auth, ...json }, body });
        if (path === '/session' && body === 'null') continue; // an absent body is allowed here
        expect(r.status, `POST ${path} ${body}: ${r.text}`).toBeLessThan(500);
        if (r.status >= 400) expectErrorShape(r, [400, 499], `POST ${path} ${body}`);
      }
    }
    await stillServes();
  });

  it('wrong content types (text/plain, form, multipart, xml, none, bogus) answer 4xx in the error shape', async () => {
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/octet-stream', 'bogus', 'application/json-seq', ''];
    for (const path of postRoutes(sid)) {
      for (const ct of types) {
        const headers: Record<string, string> = { ...auth };
        if (ct) headers['content-type'] = ct;
        const r = await raw(url, 'POST', path, { headers, body: '{"text":"hi","mode":"plan","model":"x","preset":"auto","id":"p","decision":"allow"}' });
        expect(r.status, `POST ${path} as ${ct || '(none)'}: ${r.text}`).toBeLessThan(500);
        expectErrorShape(r, [400, 499], `POST ${path} as ${ct || '(none)'}`);
      }
    }
    await stillServes();
  });

  it('oversized bodies (2 MiB, and past 32 MiB on the message route that takes images, with content-length or chunked) answer 413 in the error shape', async () => {
    const big = JSON.stringify({ text: 'a'.repeat(2 * 1024 * 1024) });
    const message = `/session/${sid}/message`;
    for (const path of postRoutes(sid)) {
      const r = await raw(url, 'POST', path, { headers: { ...auth, ...json }, body: big });
      // The message route takes up to 32 MiB (images); its text alone is capped, and no turn runs.
      if (path === message) {
        expectErrorShape(r, 400, `POST ${path} 2 MiB of text`);
        expect(r.json!['error'].message).toMatch(/^text: /);
      } else expectErrorShape(r, 413, `POST ${path} 2 MiB`);
    }
    const huge = JSON.stringify({ text: 'c', images: [{ data: 'A'.repeat(33 * 1024 * 1024) }] });
    expectErrorShape(await raw(url, 'POST', message, { headers: { ...auth, ...json }, body: huge }), 413, 'message 33 MiB');
    const chunked = await raw(url, 'POST', message, { headers: { ...auth, ...json, 'transfer-encoding': 'chunked' }, body: huge, chunked: true });
    expectErrorShape(chunked, 413, 'chunked 33 MiB');
    await stillServes();
  });

  it('path traversal and malformed session ids answer 400/404 in the error shape and touch nothing outside CHIMERA_HOME', async () => {
    const ids = ['..%2F..%2Fetc', '..%2f..%2fetc%2fpasswd', '%2e%2e', '%2e%2e%2f%2e%2e%2fetc', '..', '....%2F%2F', '..%5C..%5Cwindows', 'a%00b', '%00', 'x'.repeat(65), '%F0%9F%92%A9', 'ferret-..', 'a%20b'];
    const subpaths = ['', '/message', '/cancel', '/mode', '/model', '/approval', '/sandbox', '/permission', '/bridge', '/events'];
    const before = readdirSync(env.home).sort();
    for (const id of ids) {
      for (const sub of subpaths) {
        const method = ['', '/sandbox', '/bridge', '/events'].includes(sub) ? 'GET' : 'POST';
        const path = `/session/${id}${sub}`;
        const body = method === 'POST' ? '{"text":"x","mode":"plan","model":"x","preset":"auto","id":"p","decision":"allow"}' : undefined;
        const r = await raw(url, method, path, { headers: { ...auth, ...(body ? json : {}) }, ...(body ? { body } : {}) });
        expectErrorShape(r, [400, 404], `${method} ${path}`);
      }
    }
    // Unencoded traversal, sent verbatim (no client-side normalisation).
    for (const path of ['/session/../../etc/passwd', '/session/..%2F..%2F..%2Fetc%2Fpasswd/message', '/../../../etc/passwd', '/session/%2e%2e/%2e%2e/events', '//session//x']) {
      const r = await raw(url, 'GET', path, { headers: auth });
      expectErrorShape(r, [400, 404], `GET ${path}`);
    }
    expect(readdirSync(env.home).sort(), 'nothing new in CHIMERA_HOME').toEqual(before);
    await stillServes();
  });

  it('missing, wrong, same-length-wrong and malformed tokens answer 401 unauthorized on every route but /health', async () => {
    const routes: [string, string][] = [
      ['GET', '/session'], ['POST', '/session'], ['GET', `/session/${sid}`], ['POST', `/session/${sid}/message`], ['POST', `/session/${sid}/cancel`],
      ['POST', `/session/${sid}/mode`], ['POST', `/session/${sid}/model`], ['POST', `/session/${sid}/approval`], ['GET', `/session/${sid}/sandbox`],
      ['POST', `/session/${sid}/permission`], ['GET', `/session/${sid}/bridge`], ['GET', `/session/${sid}/events`], ['GET', '/openapi.json'], ['GET', '/no/such/route'],
    ];
    const bad: (Record<string, string | string[]>)[] = [
      {},
      { authorization: '' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: `Bearer ${SAME_LENGTH_WRONG}` },
      { authorization: 'Bearer wrong' },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
      { authorization: `Token ${TOKEN}` },
      { authorization: `Bearer ${TOKEN.toUpperCase()}` },
      { authorization: `Bearer\t${SAME_LENGTH_WRONG}` },
      { 'x-ferret-token': TOKEN },
    ];
    for (const [method, path] of routes) {
      for (const h of bad) {
        const body = method === 'POST' ? '{"text":"x"}' : undefined;
        const r = await raw(url, method, path, { headers: { ...h, ...(body ? json : {}) }, ...(body ? { body } : {}) });
        expectErrorShape(r, 401, `${method} ${path} with ${JSON.stringify(h)}`);
        expect(r.json!['error'].code).toBe('unauthorized');
        expect(r.headers['www-authenticate']).toBe('Bearer');
        expect(r.text, 'the error never echoes the token').not.toContain(TOKEN);
      }
    }
    const health = await raw(url, 'GET', '/health');
    expect(health.status).toBe(200);
    await stillServes();
  });

  it('Host header tricks (DNS rebinding: evil.example, look-alikes, wrong port, none) answer 403 forbidden even with the right token', async () => {
    const port = new URL(url).port;
    const hosts = ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `localhost.evil.example:${port}`, `127.0.0.1:${Number(port) === 1 ? 2 : 1}`, `localhost:${port}.evil.example`, `localhost:${port}@evil.example`, '127.0.0.1', `0.0.0.0:${port}`, `[::ffff:127.0.0.1]:${port}`, `evil.example:${port}#`];
    for (const host of hosts) {
      for (const [method, path] of [['GET', '/session'], ['POST', '/session'], ['GET', `/session/${sid}/events`], ['GET', '/health']] as const) {
        const body = method === 'POST' ? '{}' : undefined;
        const r = await raw(url, method, path, { headers: { ...auth, host, ...(body ? json : {}) }, ...(body ? { body } : {}) });
        expectErrorShape(r, 403, `${method} ${path} Host: ${JSON.stringify(host)}`);
        expect(r.json!['error'].code).toBe('forbidden');
      }
    }
    // Empty Host, no Host (HTTP/1.0), two Hosts: written on a raw socket, as a client library would not.
    for (const [what, head] of [
      ['empty Host', `GET /session HTTP/1.1\r\nHost: \r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`],
      ['no Host, HTTP/1.0', `GET /session HTTP/1.0\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`],
      ['evil Host first, good second', `GET /session HTTP/1.1\r\nHost: evil.example\r\nHost: ${hostHeader}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`],
    ] as const) {
      const r = await rawSocket(url, head);
      expectErrorShape(r, 403, what);
    }
    // The good names are still served.
    for (const good of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const r = await raw(url, 'GET', '/session', { headers: { ...auth, host: good } });
      expect(r.status, `Host ${good}`).toBe(200);
    }
    await stillServes();
  });

  it('malformed HTTP (garbage request line, bad percent-encoding, unframed body, CL+TE smuggling, HTTP/1.1 without Host, NUL in a header, negative Content-Length) answers 4xx in the error shape', async () => {
    const cases: [string, string][] = [
      ['garbage request line', 'GARBAGE\r\n\r\n'],
      ['bad percent-encoding in a session id', `GET /session/%ZZ HTTP/1.1\r\nHost: ${hostHeader}\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`],
      ['a lone % in the path, no token', `GET /session/%/events HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`],
      ['unframed body after a GET', `GET /session HTTP/1.1\r\nHost: ${hostHeader}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n {"x":1}`],
      ['Content-Length and Transfer-Encoding together', `POST /session HTTP/1.1\r\nHost: ${hostHeader}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`],
      ['HTTP/1.1 without Host', `GET /session HTTP/1.1\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n\r\n`],
      ['a header with a NUL byte', `GET /session HTTP/1.1\r\nHost: ${hostHeader}\r\nX-A: a\u0000b\r\nConnection: close\r\n\r\n`],
      ['a negative Content-Length', `POST /session HTTP/1.1\r\nHost: ${hostHeader}\r\nContent-Length: -1\r\nConnection: close\r\n\r\n`],
    ];
    const failures: string[] = [];
    for (const [what, bytes] of cases) {
      const r = await rawSocket(url, bytes);
      try {
        expectErrorShape(r, [400, 499], what);
      } catch (e) {
        failures.push(`${what}: HTTP ${r.status} ${JSON.stringify(r.text.slice(0, 120))} (${(e as Error).message.split('\n')[0]})`);
      }
    }
    expect(failures, 'every malformed request answered in the contract error shape').toEqual([]);
    await stillServes();
  });

  it('random methods, paths, headers and bodies (fast-check) never get a 5xx or take the server down', async () => {
    const victim = (await raw(url, 'POST', '/session', { headers: { ...auth, ...json }, body: '{}' })).json!['sessionId'] as string;
    const seg = fc.oneof(fc.constantFrom('session', victim, 'message', 'events', '..', '%2e%2e', '%2F', 'health', 'openapi.json', ''), fc.string({ maxLength: 10 }).map(encodeURIComponent));
    const arb = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      segs: fc.array(seg, { minLength: 1, maxLength: 4 }),
      query: fc.option(fc.constantFrom('?wait=false', '?wait=maybe', '?wait=', '?x=1&x=2', '?__proto__=1'), { nil: undefined }),
      withToken: fc.boolean(),
      contentType: fc.option(fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8', 'application/json; charset=latin1'), { nil: undefined }),
      body: fc.option(fc.oneof(fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)), fc.string({ maxLength: 50 })), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async (a) => {
        const path = '/' + a.segs.join('/') + (a.query ?? '');
        const headers: Record<string, string> = {};
        if (a.withToken) Object.assign(headers, auth);
        const body = a.body !== undefined && a.method !== 'HEAD' ? a.body : undefined;
        if (a.contentType && body !== undefined) headers['content-type'] = a.contentType;
        if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body)); // well-framed HTTP; bad framing has its own test
        const r = await raw(url, a.method, path, { headers, ...(body !== undefined ? { body } : {}) });
        expect(r.status, `${a.method} ${path} → ${r.text.slice(0, 200)}`).toBeLessThan(500);
        if (r.status >= 400 && a.method !== 'HEAD') expectErrorShape(r, [400, 499], `${a.method} ${path}`);
      }),
      { numRuns: 150 },
    );
    await stillServes();
  }, 60_000);
});
