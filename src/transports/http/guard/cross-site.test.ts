import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../core/index.js';
import { buildApp } from '../app.js';
import { crossSiteRefusal, isOwnOrigin } from './cross-site.js';
import type { ZodApp } from '../context.js';
import { testAppOptions } from '../test-kit.js';

// The browser-facing guard: every state-changing route (and the /acp mount) refuses cross-site
// requests with or without a token; the console's login is a cookie plus a CSRF token; Bearer
// clients work as before. The console's files are served from memory with a strict policy.

const TOKEN = 'cross-site-token-0123456789';
const HOST = '127.0.0.1:5173';
const SELF = `http://${HOST}`;
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-cross-site-')));
const home = join(root, 'home');
const ws = join(root, 'ws');
const consoleDir = join(root, 'console');
mkdirSync(home);
mkdirSync(ws);
mkdirSync(join(consoleDir, 'assets'), { recursive: true });
writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/assets/console.js"></script>');
writeFileSync(join(consoleDir, 'assets', 'console.js'), `console.log(${JSON.stringify('x'.repeat(5000))});`);
writeFileSync(join(root, 'secret.txt'), 'not for the web');
const model = join(root, 'model.json');
writeFileSync(model, JSON.stringify({ responses: [{ chunks: ['one'] }, { chunks: ['two'] }, { chunks: ['three'] }] }));

let core: Core;
const mountCalls: string[] = [];
const logger = pino({ level: 'silent' });
async function app(token: string | undefined): Promise<ZodApp> {
  const { app } = await buildApp(
    testAppOptions(core.manager, logger, {
      token,
      hosts: () => new Set([HOST]),
      consoleDir,
      mounts: [{ path: '/acp', handle: (req: IncomingMessage, res: ServerResponse) => (mountCalls.push(req.method ?? ''), res.end('{}')) }],
    }),
  );
  return app;
}

let withToken: ZodApp;
let open: ZodApp;
let sid: string;
beforeAll(async () => {
  core = createCore({ logger, home, env: {}, cwd: ws, sandbox: 'workspace-write', approval: 'auto', model: `scripted:${model}` });
  withToken = await app(TOKEN);
  open = await app(undefined);
  sid = core.manager.create({}).id;
});
afterAll(async () => {
  await withToken.close();
  await open.close();
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

type Method = 'GET' | 'POST' | 'HEAD' | 'DELETE' | 'PUT' | 'PATCH';
const inject = (a: ZodApp, method: Method, url: string, headers: Record<string, string> = {}, payload?: unknown): Promise<LightMyRequestResponse> =>
  a.inject({ method, url, headers: { host: HOST, ...headers }, ...(payload !== undefined ? { payload: payload as object } : {}) });

/** Every state-changing route of the document (with a real session id) and the /acp mount, each with a body it accepts. */
async function stateChanging(): Promise<{ method: Method; path: string; body: unknown }[]> {
  const doc = (await inject(withToken, 'GET', '/openapi.json', { authorization: `Bearer ${TOKEN}` })).json();
  const bodies: Record<string, unknown> = {
    '/session': {},
    '/session/{id}/message': { text: 'hi' },
    '/session/{id}/mode': { mode: 'plan' },
    '/session/{id}/model': { model: `scripted:${model}` },
    '/session/{id}/approval': { preset: 'full-auto' },
    '/session/{id}/permission': { id: 'perm-x', decision: 'allow' },
    '/auth/login': { token: TOKEN },
  };
  // Every operation that is not a read (a new route is covered by the same hook); at least these.
  const writes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) =>
    Object.keys(ops)
      .filter((m) => !['get', 'head', 'options'].includes(m))
      .map((m) => ({ method: m.toUpperCase() as Method, p })),
  );
  expect(writes.map((w) => `${w.method} ${w.p}`)).toEqual(
    expect.arrayContaining(['POST /auth/login', 'POST /auth/logout', 'POST /session', 'POST /session/{id}/approval', 'POST /session/{id}/cancel', 'POST /session/{id}/message', 'POST /session/{id}/mode', 'POST /session/{id}/model', 'POST /session/{id}/permission']),
  );
  return [
    ...writes.map((w) => ({ method: w.method, path: w.p.replace('{id}', sid), body: bodies[w.p] })),
    { method: 'POST', path: '/acp', body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} } },
    { method: 'DELETE', path: '/acp', body: undefined },
  ];
}

const HOSTILE: Record<string, string>[] = [
  { origin: 'http://evil.example' },
  { origin: 'http://127.0.0.1:3000' }, // another port on the same machine: another origin
  { origin: 'null' },
  { 'sec-fetch-site': 'cross-site' },
  { 'sec-fetch-site': 'same-site' },
  { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }, // a form post
  { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
];

describe('cross-site requests', () => {
  it.each([
    ['with a token', () => withToken],
    ['without a token (loopback)', () => open],
  ])('every state-changing route refuses them %s: 403 forbidden, nothing done', async (_name, a) => {
    const routes = await stateChanging();
    const before = { sessions: (await core.manager.list()).sessions.length, seq: core.manager.get(sid).lastSeq, mounts: mountCalls.length };
    for (const { method, path, body } of routes) {
      for (const h of HOSTILE) {
        const res = await inject(a(), method, path, { 'content-type': 'application/json', ...h }, body === undefined ? undefined : JSON.stringify(body));
        expect({ path, h, status: res.statusCode }).toEqual({ path, h, status: 403 });
        expect(res.json().error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/is refused: only this server's own pages may call it/) });
      }
    }
    expect({ sessions: (await core.manager.list()).sessions.length, seq: core.manager.get(sid).lastSeq, mounts: mountCalls.length }).toEqual(before);
  });

  it('the tokenless-loopback cancel of the issue: a body-less cross-site POST is refused and the turn goes on', async () => {
    const s = core.manager.get(sid);
    const res = await inject(open, 'POST', `/session/${sid}/cancel`, { origin: 'https://some-site.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' });
    expect(res.statusCode).toBe(403);
    expect(s.status).toBe('idle'); // nothing ran; nothing was touched
  });

  it('reads from another site are refused too, but a link to the console (a navigation) opens it', async () => {
    const reads: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' }, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' }, { origin: 'http://evil.example' }];
    for (const h of reads) {
      expect((await inject(open, 'GET', '/session', h)).statusCode).toBe(403);
      expect((await inject(withToken, 'GET', '/auth/session', h)).statusCode).toBe(403);
    }
    const nav = { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };
    expect((await inject(withToken, 'GET', '/', nav)).statusCode).toBe(200);
    // …but not into a frame.
    expect((await inject(withToken, 'GET', '/', { ...nav, 'sec-fetch-dest': 'iframe' })).statusCode).toBe(403);
  });

  it('the server\'s own pages and non-browser clients pass as before', async () => {
    const own = { origin: SELF, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
    expect((await inject(open, 'POST', '/session', own, '{}')).statusCode).toBe(201);
    expect((await inject(open, 'POST', `/session/${sid}/cancel`, { 'sec-fetch-site': 'none' })).statusCode).toBe(200);
    // A bot: no Origin, no Sec-Fetch-Site.
    const bot = { authorization: `Bearer ${TOKEN}` };
    expect((await inject(withToken, 'POST', `/session/${sid}/cancel`, bot)).statusCode).toBe(200);
    expect((await inject(open, 'POST', `/session/${sid}/cancel`)).statusCode).toBe(200);
    // The right Bearer token is no forgery, whatever the Origin says (a browser never sends it by itself).
    expect((await inject(withToken, 'POST', `/session/${sid}/cancel`, { ...bot, origin: 'http://elsewhere.example' })).statusCode).toBe(200);
    // A wrong one is no exemption.
    expect((await inject(withToken, 'POST', `/session/${sid}/cancel`, { authorization: 'Bearer nope', origin: 'http://elsewhere.example' })).statusCode).toBe(403);
  });

  it('compares the scheme too: https://HOST is not this plain-HTTP server; X-Forwarded-Proto counts only with a token', async () => {
    for (const server of [open, withToken]) {
      const res = await inject(server, 'POST', `/session/${sid}/cancel`, { origin: `https://${HOST}` });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.message).toMatch(/another origin \(Origin: https:\/\/127\.0\.0\.1:5173\)/);
    }
    expect((await inject(open, 'POST', `/session/${sid}/cancel`, { origin: `https://${HOST}`, 'x-forwarded-proto': 'https' })).statusCode).toBe(403);
    // Behind a TLS proxy (a server with a token): the console's own https origin; then http is the other one.
    expect((await inject(withToken, 'GET', '/session', { origin: `https://${HOST}`, 'x-forwarded-proto': 'https' })).statusCode).toBe(401);
    expect((await inject(withToken, 'GET', '/session', { origin: SELF, 'x-forwarded-proto': 'https' })).statusCode).toBe(403);
    expect((await inject(open, 'POST', `/session/${sid}/cancel`, { origin: SELF })).statusCode).toBe(200);
  });

  it('the Host check still comes first', async () => {
    const res = await inject(withToken, 'POST', `/session/${sid}/cancel`, { host: 'evil.example:5173', origin: 'http://evil.example:5173' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toMatch(/Host header "evil.example:5173" is not this server/);
  });

  it('crossSiteRefusal and isOwnOrigin', () => {
    const r = (method: string, headers: Record<string, string>) => crossSiteRefusal({ method, headers: { host: HOST, ...headers } });
    expect(r('POST', {})).toBeUndefined();
    expect(r('POST', { origin: SELF, 'sec-fetch-site': 'same-origin' })).toBeUndefined();
    expect(r('POST', { origin: 'HTTP://127.0.0.1:5173' })).toBeUndefined();
    expect(r('POST', { origin: 'http://127.0.0.1:5173.evil.example' })).toMatch(/another origin/);
    expect(r('GET', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' })).toBeUndefined();
    expect(r('POST', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' })).toMatch(/same-site request/);
    expect(isOwnOrigin('http://localhost', 'localhost:80', 'http')).toBe(true);
    expect(isOwnOrigin('https://ferret.example', 'ferret.example:443', 'https')).toBe(true);
    expect(isOwnOrigin('http://[::1]:5173', '[::1]:5173', 'http')).toBe(true);
    for (const bad of ['null', 'file://', 'chrome-extension://abc', 'not a url', 'http://localhost:5174', 'https://localhost:5173', 'ws://localhost:5173']) {
      expect(isOwnOrigin(bad, 'localhost:5173', 'http')).toBe(false);
    }
    // The scheme counts: same host and port by the other scheme is another origin.
    expect(isOwnOrigin('http://ferret.example', 'ferret.example', 'https')).toBe(false);
    expect(isOwnOrigin('https://127.0.0.1:5173', '127.0.0.1:5173', 'http')).toBe(false);
    expect(r('POST', { origin: 'https://127.0.0.1:5173' })).toMatch(/another origin/);
    expect(crossSiteRefusal({ method: 'POST', headers: { host: HOST, origin: 'https://127.0.0.1:5173' }, scheme: 'https' })).toBeUndefined();
  });
});

describe('the console login (cookie + CSRF token)', () => {
  const cookieOf = (res: LightMyRequestResponse): string => String(res.headers['set-cookie']).split(';')[0]!;

  it('exchanges the token for an HttpOnly, SameSite=Strict cookie and a CSRF token every POST must carry', async () => {
    const wrong = await inject(withToken, 'POST', '/auth/login', { origin: SELF, 'content-type': 'application/json' }, JSON.stringify({ token: 'nope' }));
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const login = await inject(withToken, 'POST', '/auth/login', { origin: SELF, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, JSON.stringify({ token: TOKEN }));
    expect(login.statusCode).toBe(200);
    expect(login.headers['cache-control']).toBe('no-store');
    const setCookie = String(login.headers['set-cookie']);
    expect(setCookie).toMatch(/^ferret_session_5173=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(setCookie).not.toContain(TOKEN);
    const { csrfToken } = login.json();
    expect(login.json()).toEqual({ tokenRequired: true, authenticated: true, csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const cookie = cookieOf(login);

    // Reads need only the cookie; the page learns its CSRF token from /auth/session.
    expect((await inject(withToken, 'GET', '/session', { cookie })).statusCode).toBe(200);
    expect((await inject(withToken, 'GET', '/auth/session', { cookie })).json()).toEqual({ tokenRequired: true, authenticated: true, csrfToken });
    expect((await inject(withToken, 'GET', '/auth/session')).json()).toEqual({ tokenRequired: true, authenticated: false });
    // Writes need the CSRF token too, even from the server's own origin.
    const post = (headers: Record<string, string>) => inject(withToken, 'POST', '/session', { cookie, origin: SELF, 'content-type': 'application/json', ...headers }, '{}');
    expect((await post({})).statusCode).toBe(403);
    expect((await post({})).json().error.message).toMatch(/x-ferret-csrf/);
    expect((await post({ 'x-ferret-csrf': 'guess' })).statusCode).toBe(403);
    expect((await post({ 'x-ferret-csrf': csrfToken })).statusCode).toBe(201);
    // The cookie of another port's server is not this one's.
    expect((await inject(withToken, 'GET', '/session', { cookie: cookie.replace('5173', '5174') })).statusCode).toBe(401);

    // Logout ends it.
    const out = await inject(withToken, 'POST', '/auth/logout', { cookie, origin: SELF, 'x-ferret-csrf': csrfToken });
    expect(out.statusCode).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(/^ferret_session_5173=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    expect((await inject(withToken, 'GET', '/session', { cookie })).statusCode).toBe(401);
    expect((await post({ 'x-ferret-csrf': csrfToken })).statusCode).toBe(401);
  });

  it('a login from another site is refused (no login CSRF), even with the right token', async () => {
    const res = await inject(withToken, 'POST', '/auth/login', { origin: 'http://evil.example', 'content-type': 'text/plain' }, JSON.stringify({ token: TOKEN }));
    expect(res.statusCode).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('a tokenless server needs no login', async () => {
    expect((await inject(open, 'GET', '/auth/session')).json()).toEqual({ tokenRequired: false, authenticated: true });
  });

  it('the token is never taken from a URL', async () => {
    expect((await inject(withToken, 'GET', `/session?token=${TOKEN}`)).statusCode).toBe(401);
    expect((await inject(withToken, 'GET', `/session?access_token=${TOKEN}`)).statusCode).toBe(401);
  });
});

describe('the console files', () => {
  it('GET / and its assets need no token, with a strict page policy; everything else still does', async () => {
    const page = await inject(withToken, 'GET', '/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    expect(page.headers).toMatchObject({ 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
    const js = await inject(withToken, 'GET', '/assets/console.js', { 'accept-encoding': 'gzip, br' });
    expect(js.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'content-encoding': 'gzip' });
    expect(gunzipSync(js.rawPayload).toString()).toContain('console.log(');
    expect((await inject(withToken, 'GET', '/assets/console.js', { 'if-none-match': String(js.headers['etag']) })).statusCode).toBe(304);
    expect((await inject(withToken, 'HEAD', '/')).statusCode).toBe(200);
    expect((await inject(withToken, 'GET', '/nope')).statusCode).toBe(401);
    expect((await inject(withToken, 'POST', '/')).statusCode).toBe(401);
  });

  it('no URL reaches another file', async () => {
    for (const url of ['/assets/../secret.txt', '/assets/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/../secret.txt', '/index.html', '/assets/', '/assets/console.js/']) {
      const res = await inject(open, 'GET', url);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 404 });
      expect(res.body).not.toContain('not for the web');
    }
  });

  it('not built: GET / says so', async () => {
    const { app: bare } = await buildApp(testAppOptions(core.manager, logger, { token: undefined, hosts: () => undefined }));
    try {
      const res = await bare.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.message).toMatch(/web console is not built/);
    } finally {
      await bare.close();
    }
  });
});

describe('what the console reads', () => {
  it('GET /models: the list the ACP model picker offers, the default first', async () => {
    const res = await inject(open, 'GET', '/models');
    expect(res.json()).toEqual({ default: `scripted:${model}`, models: core.manager.models().map((m) => ({ id: m.id, name: m.name })) });
    expect(res.json().models[0].id).toBe(`scripted:${model}`);
  });

  it('GET /session/:id/prompts: what the user said, by seq, after a seq', async () => {
    const s = core.manager.create({});
    await s.startTurn('first', { origin: 'http' }).done;
    await s.startTurn('second', { origin: 'acp:c9' }).done;
    const all = (await inject(open, 'GET', `/session/${s.id}/prompts`)).json().prompts;
    expect(all.map((p: { text: string; origin: string }) => [p.text, p.origin])).toEqual([
      ['first', 'http'],
      ['second', 'acp:c9'],
    ]);
    const later = (await inject(open, 'GET', `/session/${s.id}/prompts?after=${all[0].seq}`)).json().prompts;
    expect(later.map((p: { text: string }) => p.text)).toEqual(['second']);
    expect((await inject(open, 'GET', `/session/${s.id}/prompts?after=-1`)).statusCode).toBe(400);
    expect((await inject(open, 'GET', '/session/no-such/prompts')).statusCode).toBe(404);
  });

  it('GET /session tells each live session\'s approval', async () => {
    const s = core.manager.create({ approval: 'suggest' });
    const mine = (await inject(open, 'GET', '/session')).json().sessions.find((x: { sessionId: string }) => x.sessionId === s.id);
    expect(mine).toMatchObject({ approval: 'suggest', live: true });
  });
});
