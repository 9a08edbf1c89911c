import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A page on another origin that tries every way a browser offers to read from or act on a
// ferret server: what any website the person visits could do while the console is open.

/** What the page reports: each attempt's outcome as the page could see it. */
export interface HostileResults {
  /** CORS reads (fetch of JSON, of the event stream, of the login state): 'blocked' or what was read. */
  reads: Record<string, string>;
  /** Simple (no-cors) POSTs and form posts: they go out, the page cannot see the answer. */
  writes: string[];
  /** A POST that needs a preflight (JSON, a CSRF header): 'blocked' or what came back. */
  preflighted: string;
  /** EventSource and <script src>: 'error' or what arrived. */
  eventSource: string;
  script: string;
}

// The page's script (plain JS: it runs in the browser, not here). Each attempt waits for the one before.
const ATTACK = `async function attack(target, sessionId, token) {
  const results = { reads: {}, writes: [], preflighted: '', eventSource: '', script: '' };
  const read = async (name, path, init) => {
    try {
      const r = await fetch(target + path, { credentials: 'include', ...init });
      results.reads[name] = \`read \${r.status}: \${(await r.text()).slice(0, 80)}\`;
    } catch {
      results.reads[name] = 'blocked';
    }
  };
  const simplePost = async (path, body) => {
    results.writes.push(path);
    await fetch(target + path, { method: 'POST', mode: 'no-cors', credentials: 'include', ...(body !== undefined ? { body, headers: { 'content-type': 'text/plain' } } : {}) }).catch(() => undefined);
  };
  const formPost = (path, fields) =>
    new Promise((resolve) => {
      results.writes.push(\`form \${path}\`);
      const frame = document.createElement('iframe');
      frame.name = \`f\${results.writes.length}\`;
      frame.style.display = 'none';
      document.body.append(frame);
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = target + path;
      form.target = frame.name;
      form.enctype = 'text/plain';
      for (const [k, v] of Object.entries(fields)) {
        const input = document.createElement('input');
        input.name = k;
        input.value = v;
        form.append(input);
      }
      document.body.append(form);
      frame.addEventListener('load', () => resolve(), { once: true });
      setTimeout(resolve, 3000);
      form.submit();
    });
  const id = encodeURIComponent(sessionId);
  await read('sessions', '/session');
  await read('events', \`/session/\${id}/events\`, { headers: { accept: 'text/event-stream' } });
  await read('authState', '/auth/session');
  await read('openapi', '/openapi.json');
  await simplePost(\`/session/\${id}/cancel\`);
  await simplePost('/session', '{}');
  await simplePost(\`/session/\${id}/message?wait=false\`, JSON.stringify({ text: 'pwned' }));
  await simplePost(\`/session/\${id}/approval\`, JSON.stringify({ preset: 'full-auto' }));
  await simplePost(\`/session/\${id}/mode\`, JSON.stringify({ mode: 'plan' }));
  await simplePost(\`/session/\${id}/permission\`, JSON.stringify({ id: 'perm-1', decision: 'always' }));
  await simplePost('/auth/login', JSON.stringify({ token }));
  await simplePost('/auth/logout');
  await simplePost('/acp', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } }));
  await formPost(\`/session/\${id}/cancel\`, { '{"x":"': '"}' });
  await formPost(\`/session/\${id}/message?wait=false\`, { '{"text":"pwned","x":"': '"}' });
  try {
    const r = await fetch(\`\${target}/session/\${id}/cancel\`, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-ferret-csrf': 'guess' }, body: '{}' });
    results.preflighted = \`read \${r.status}\`;
  } catch {
    results.preflighted = 'blocked';
  }
  results.eventSource = await new Promise((resolve) => {
    const es = new EventSource(\`\${target}/session/\${id}/events\`, { withCredentials: true });
    es.onmessage = (e) => resolve(\`message \${String(e.data).slice(0, 40)}\`);
    es.onerror = () => {
      es.close();
      resolve('error');
    };
    setTimeout(() => resolve('silent'), 5000);
  });
  results.script = await new Promise((resolve) => {
    const s = document.createElement('script');
    s.src = \`\${target}/session\`;
    s.onload = () => resolve('loaded');
    s.onerror = () => resolve('error');
    document.head.append(s);
  });
  return results;
}

`;

/** Serves the hostile page on host:0; its URL takes ?target=&session=&token=. */
export async function startHostileSite(host: string): Promise<{ url: string; close(): Promise<void> }> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A page on another site</title></head><body><h1>Another site</h1>
<script>
${ATTACK}
const q = new URLSearchParams(location.search);
window.__done = attack(q.get('target'), q.get('session'), q.get('token'));
</script></body></html>`;
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shown}:${port}/`, close: () => new Promise((r) => server.close(() => r())) };
}
