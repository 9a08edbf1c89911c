// web_fetch against a loopback server this test starts (allowPrivate switched on for 127.0.0.1
// only, per test): what the model reads of HTML, JSON, binary, compressed and oversized bodies,
// and which redirects are followed, handed back or refused.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostFacts, type WebChoice } from '../../sandbox/index.js';
import type { ToolContext } from '../define.js';
import { fetchPage } from './fetch-page.js';
import { isTextual } from './page-text.js';
import { webFetchTool } from './web-fetch.js';

let server: Server;
let base = '';
const hits: string[] = [];

const PAGE = `<!doctype html><html><head><title>Widget &amp; Co docs</title><style>body{color:red}</style><script>alert('x')</script></head>
<body><h1>Install</h1><p>Run <code>npm i widget</code> and read <a href="/api">the API</a>.</p><ul><li>fast</li><li>small</li></ul>
<img src="data:image/png;base64,${'A'.repeat(5000)}" alt="logo"><pre><code>widget.start()</code></pre></body></html>`;

function route(req: IncomingMessage, res: ServerResponse): void {
  hits.push(req.url ?? '');
  const send = (type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
    res.writeHead(200, { 'content-type': type, ...extra });
    res.end(body);
  };
  switch (req.url ?? '') {
    case '/page': return send('text/html; charset=utf-8', PAGE);
    case '/json': return send('application/json', '{"name":"widget","version":"1.2.3"}');
    case '/png': return send('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    case '/gz': return send('text/plain', gzipSync('compressed hello'), { 'content-encoding': 'gzip' });
    case '/bomb': return send('text/plain', gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a')), { 'content-encoding': 'gzip' });
    case '/latin1': return send('text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    case '/missing': res.writeHead(404, { 'content-type': 'text/plain' }); return void res.end('no such page');
    case '/hop': res.writeHead(302, { location: '/page' }); return void res.end();
    case '/loop': res.writeHead(302, { location: '/loop' }); return void res.end();
    case '/away': res.writeHead(301, { location: 'https://example.org/elsewhere' }); return void res.end();
    case '/to-metadata': res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }); return void res.end();
    case '/to-localhost': res.writeHead(302, { location: `http://localhost:${(server.address() as AddressInfo).port}/page` }); return void res.end();
    case '/to-file': res.writeHead(302, { location: 'file:///etc/passwd' }); return void res.end();
    case '/slow': res.writeHead(200, { 'content-type': 'text/plain' }); return void res.write('partial'); // never ends
    default: res.writeHead(500); res.end(); // undefined and every other path
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const loopbackOnly: WebChoice = { allowDomains: ['localhost', '169.254.169.254'], allowPrivate: ['127.0.0.1'] };

async function fetchWith(url: string, web: WebChoice = loopbackOnly, prompt?: string) {
  const facts = createHostFacts({ env: {}, web }).workspace('/tmp');
  const ctx: ToolContext = {
    cwd: '/tmp', callId: 'c', signal: new AbortController().signal, sandbox: 'workspace-write',
    files: { readText: () => Promise.reject(new Error('unused')), writeText: () => Promise.reject(new Error('unused')) },
    env: {}, facts, progress: () => {}, fileEdit: () => {}, fileOpen: () => {}, violation: () => {},
  };
  return webFetchTool.run({ url, ...(prompt ? { prompt } : {}) }, ctx);
}

describe('web_fetch (loopback server, allowPrivate for 127.0.0.1 only)', () => {
  it('turns HTML into Markdown without scripts, styles or inline image bytes', async () => {
    const r = await fetchWith(`${base}/page`, loopbackOnly, 'how to install');
    expect(r.status).toBe('completed');
    expect(r.output).toContain('# Widget & Co docs');
    expect(r.output).toContain('# Install');
    expect(r.output).toContain('Run `npm i widget` and read [the API](/api).');
    expect(r.output).toMatch(/-\s+fast/);
    expect(r.output).toContain('```\nwidget.start()\n```');
    expect(r.output).toContain('[image: logo]');
    expect(r.output).toContain('Looking for: how to install');
    expect(r.output).not.toContain('alert(');
    expect(r.output).not.toContain('color:red');
    expect(r.output).not.toContain('AAAA');
  });

  it('returns JSON and text as they are, decompressed and decoded with their charset', async () => {
    expect((await fetchWith(`${base}/json`)).output).toContain('{"name":"widget","version":"1.2.3"}');
    expect((await fetchWith(`${base}/gz`)).output).toContain('compressed hello');
    expect((await fetchWith(`${base}/latin1`)).output).toContain('café');
  });

  it('refuses binary content clearly', async () => {
    const r = await fetchWith(`${base}/png`);
    expect(r.status).toBe('failed');
    expect(r.output).toContain('image/png');
    expect(r.output).toContain('text pages only');
  });

  it('cuts a body at the size cap, counted after decompression', async () => {
    const r = await fetchWith(`${base}/bomb`);
    expect(r.output).toContain(`the body was cut at ${5 * 1024 * 1024} bytes`);
    expect(r.output.length).toBeLessThan(1.1 * 1024 * 1024);
  });

  it('an HTTP error is a failed call the model can read', async () => {
    const r = await fetchWith(`${base}/missing`);
    expect(r.status).toBe('failed');
    expect(r.output).toContain('Status: 404');
    expect(r.output).toContain('no such page');
  });

  it('follows a redirect on the same host, and stops a redirect loop', async () => {
    const r = await fetchWith(`${base}/hop`);
    expect(r.output).toContain(`URL: ${base}/page`);
    expect(r.output).toContain('# Install');
    const loop = await fetchWith(`${base}/loop`);
    expect(loop.output).toContain('more than 5 redirects');
  });

  it('hands a redirect to another host back instead of following it', async () => {
    const r = await fetchWith(`${base}/away`);
    expect(r.output).toContain('https://example.org/elsewhere');
    expect(r.output).toContain('not followed');
  });

  it('refuses a redirect to a private address, and to a name that resolves to loopback', async () => {
    const n = hits.length;
    const meta = await fetchWith(`${base}/to-metadata`);
    expect(meta.status).toBe('failed');
    expect(meta.output).toMatch(/refused: 169\.254\.169\.254 is a link-local address/);
    const local = await fetchWith(`${base}/to-localhost`);
    expect(local.output).toMatch(/refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/);
    // Only the redirecting pages were served: no request followed either redirect.
    expect(hits.slice(n)).toEqual(['/to-metadata', '/to-localhost']);
    expect((await fetchWith(`${base}/to-file`)).output).toContain('only http and https');
  });

  it('by default reaches no loopback, link-local or private address, and no name resolving to one', async () => {
    const n = hits.length;
    for (const url of [`${base}/page`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', `http://[::1]:${new URL(base).port}/page`, `http://[::ffff:127.0.0.1]:${new URL(base).port}/page`, `http://localhost:${new URL(base).port}/page`]) {
      const r = await fetchWith(url, { allowDomains: [], allowPrivate: false });
      expect(r.status, url).toBe('failed');
      expect(r.output, url).toContain('refused:');
    }
    expect(hits.length).toBe(n);
  });

  it('gives up at the deadline', async () => {
    const at = Date.now();
    await expect(fetchPage(`${base}/slow`, { choice: loopbackOnly, signal: new AbortController().signal, wanted: isTextual, limits: { deadlineMs: 300, maxBytes: 1000, maxRedirects: 1 } })).rejects.toThrow('no complete answer within 0.3 s');
    expect(Date.now() - at).toBeLessThan(5000);
  });
});
