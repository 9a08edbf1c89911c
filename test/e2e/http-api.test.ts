import { beforeEach, describe, expect, it } from 'vitest';
import { createFerretClient, type FerretHttpError } from '../../clients/typescript/src/index.mjs';
import { FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { tempEnv, writeScript } from '../support/temp.mjs';

const TOKEN = 'secret-token-0123456789';
const WRONG = 'secret-token-9876543210'; // same length
const CHAT = { responses: [{ chunks: ['Hello.'] }, { chunks: ['Again.'] }] };

// api() is node:http underneath, so unlike fetch it can send a foreign Host header.
const statusWithHost = async (url: string, path: string, host: string): Promise<number> => (await api(url, 'GET', path, undefined, undefined, { host })).status;

describe('HTTP API: auth, routes, errors', () => {
  const { env, startHttp } = ferretPerTest();
  let proc: FerretClient | undefined;
  let url: string;
  beforeEach(async () => {
    const model = writeScript(env.ws, 'model.json', CHAT);
    ({ proc, url } = await startHttp(['--model', `scripted:${model}`], { FERRET_SERVER_TOKEN: TOKEN }));
  });

  it('refuses every route but /health without the token, or with a wrong one of the same length', async () => {
    const s = await api(url, 'POST', '/session', {}, TOKEN);
    expect(s.status).toBe(201);
    const id = s.body['sessionId'] as string;
    const routes: [string, string, unknown?][] = [
      ['GET', '/openapi.json'],
      ['POST', '/session', {}],
      ['GET', '/session'],
      ['GET', `/session/${id}`],
      ['POST', `/session/${id}/message`, { text: 'hi' }],
      ['POST', `/session/${id}/cancel`],
      ['POST', `/session/${id}/mode`, { mode: 'plan' }],
      ['POST', `/session/${id}/model`, { model: 'scripted:x' }],
      ['POST', `/session/${id}/approval`, { preset: 'suggest' }],
      ['GET', `/session/${id}/sandbox`],
      ['POST', `/session/${id}/permission`, { id: 'p', decision: 'allow' }],
      ['GET', `/session/${id}/bridge`],
      ['GET', `/session/${id}/events`],
    ];
    for (const [method, path, body] of routes) {
      for (const token of [undefined, WRONG]) {
        const r = await api(url, method, path, body, token);
        expect(r.status, `${method} ${path} token=${token}`).toBe(401);
        expect(r.body['error']['code']).toBe('unauthorized');
      }
    }
    const h = await api(url, 'GET', '/health');
    expect(h).toMatchObject({ status: 200, body: { ok: true } });
    expect(typeof h.body['version']).toBe('string');
    expect(h.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('drives a session through every route with the token', async () => {
    // The typed client; `raw` (openapi-fetch, same document) where the test reads the status of a 2xx.
    const ferret = createFerretClient({ baseUrl: url, token: TOKEN });
    const s = await ferret.raw.POST('/session', { body: { mode: 'code', approval: 'full-auto' } });
    expect(s.response.status).toBe(201);
    expect(s.data).toMatchObject({ mode: 'code', sandbox: 'workspace-write', approval: 'full-auto', cwd: env.ws });
    const id = s.data!.sessionId;
    const list = await ferret.listSessions();
    expect(list.sessions.map((x) => x.sessionId)).toContain(id);

    const msg = await ferret.raw.POST('/session/{id}/message', { params: { path: { id } }, body: { text: 'hello' } });
    expect(msg.response.status).toBe(200);
    expect(msg.data).toMatchObject({ stopReason: 'end_turn', message: { role: 'assistant', text: 'Hello.' } });
    const accepted = await ferret.raw.POST('/session/{id}/message', { params: { path: { id }, query: { wait: 'false' } }, body: { text: 'again' } });
    expect(accepted.response.status).toBe(202);
    expect(typeof accepted.data?.turnId).toBe('string');

    const detail = await ferret.getSession(id);
    expect(detail).toMatchObject({ sessionId: id, title: 'hello', costUsd: 0 });
    expect(['idle', 'running']).toContain(detail.status);
    expect(await ferret.cancelTurn(id)).toEqual({ ok: true });
    expect(await ferret.setMode(id, 'plan')).toEqual({ mode: 'plan' });
    expect(await ferret.setApproval(id, 'suggest')).toEqual({ old: 'full-auto', new: 'suggest' });
    expect(await ferret.getSandbox(id)).toEqual({ mode: 'workspace-write' });
    expect(await ferret.getBridge(id)).toEqual({ attached: false, relay: null, pairingUrl: null, devices: 0, lastError: null, reconnects: 0 });
    const perm = (await ferret.answerPermission(id, 'perm-x', 'allow').catch((e: unknown) => e)) as FerretHttpError;
    expect(perm.status).toBe(404);
    expect(perm.code).toBe('permission_not_found');
    const model = (await ferret.setModel(id, 'scripted:/nope.json').catch((e: unknown) => e)) as FerretHttpError;
    expect(model.status).toBeGreaterThanOrEqual(400);
    expect((model.body as { error?: unknown }).error).toBeDefined();

    const doc = (await ferret.openapi()) as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown }>> };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/session', '/session/{id}/message', '/session/{id}/events']));
    expect(doc.paths['/session']!['post']!.requestBody).toBeDefined();
  });

  it('answers errors in one shape, naming the field; ids cannot reach outside the state folder', async () => {
    const bad = await api(url, 'POST', '/session', { mode: 'yolo' }, TOKEN);
    expect(bad.status).toBe(400);
    expect(bad.body['error']['code']).toBe('invalid_params');
    expect(bad.body['error']['message']).toContain('mode');
    const noText = await api(url, 'POST', '/session/abc/message', {}, TOKEN);
    expect(noText.status).toBe(400);
    expect(noText.body['error']['message']).toContain('text');
    for (const id of ['..%2F..%2Fetc%2Fpasswd', 'a%00b']) {
      const r = await api(url, 'GET', `/session/${id}`, undefined, TOKEN);
      expect([400, 404], id).toContain(r.status);
      expect(r.body['error']).toBeDefined();
    }
    // A client resolves `/session/..` (and `%2E%2E`) to `/`: the web console's page, no session.
    for (const id of ['..', '%2E%2E']) {
      const r = await api(url, 'GET', `/session/${id}`, undefined, TOKEN);
      expect(r.headers.get('content-type'), id).toMatch(/^text\/html/);
    }
    expect((await api(url, 'GET', '/session/does-not-exist', undefined, TOKEN)).status).toBe(404);
    expect((await api(url, 'GET', '/nope', undefined, TOKEN)).body['error']['code']).toBe('not_found');
    const big = await api(url, 'POST', '/session', { cwd: 'x'.repeat(2 * 1024 * 1024) }, TOKEN);
    expect(big.status).toBe(413);
    expect(big.body['error']).toBeDefined();

    const s = await api(url, 'POST', '/session', {}, TOKEN);
    const id = s.body['sessionId'] as string;
    const first = await api(url, 'POST', `/session/${id}/message?wait=false`, { text: 'one' }, TOKEN);
    expect(first.status).toBe(202);
    // One turn at a time is checked deterministically (a slow scripted turn) in core-facts.test.ts.
  });

  it('refuses a foreign Host header (DNS rebinding) and sends no CORS headers', async () => {
    const port = new URL(url).port;
    expect(await statusWithHost(url, '/health', `evil.example:${port}`)).toBe(403);
    expect(await statusWithHost(url, '/health', `localhost:${port}`)).toBe(200);
    expect(await statusWithHost(url, '/health', `127.0.0.1:${port}`)).toBe(200);
    const pre = await api(url, 'OPTIONS', '/session', undefined, TOKEN, { origin: 'http://evil.example', 'access-control-request-method': 'POST' });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps serving after stdin closes, and SIGTERM exits cleanly and releases the port', async () => {
    proc!.child.stdin.end();
    await new Promise((r) => setTimeout(r, 300));
    expect((await api(url, 'GET', '/health')).status).toBe(200);
    expect(await proc!.stop()).toBe(0);
    proc = undefined;
    await expect(fetch(url + '/health')).rejects.toThrow();
  });
});

describe('HTTP start-up', () => {
  it('refuses a non-loopback bind without a token', async () => {
    const env = tempEnv();
    try {
      const p = new FerretClient(['--http', '--port', '0', '--host', '0.0.0.0', '--cwd', env.ws], { CHIMERA_HOME: env.home, FERRET_SERVER_TOKEN: '' });
      const t = setTimeout(() => p.child.kill('SIGKILL'), 8000);
      const code = await p.exited;
      clearTimeout(t);
      expect(code).not.toBe(0);
      expect(p.stderr).toContain('FERRET_SERVER_TOKEN');
    } finally {
      env.cleanup();
    }
  });
});
