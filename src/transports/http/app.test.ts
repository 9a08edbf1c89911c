import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type CoreInternals as Core } from '../../core/create-core.js';
import type { LiveSession } from '../../core/sessions/live-session.js';
import type { HttpErrorCode } from './errors.js';
import { buildApp } from './app.js';
import type { ZodApp } from './context.js';
import { testAppOptions } from './test-kit.js';

// Every route and every error of the HTTP transport through app.inject(): no socket, no spawn.
// The SSE stream's content is covered by test/e2e; here only its refusals.

const TOKEN = 'test-token-0123456789';
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-http-app-')));
const home = join(root, 'home');
const ws = join(root, 'ws');
mkdirSync(home);
mkdirSync(ws);

let n = 0;
function script(file: Record<string, unknown>): string {
  const path = join(root, `script-${n++}.json`);
  writeFileSync(path, JSON.stringify(file));
  return `scripted:${path}`;
}
const DEFAULT_MODEL = script({ responses: [{ chunks: ['Hello ', 'from HTTP.'], usage: { input: 10, output: 4 } }, { chunks: ['second'] }] });
const SLOW_MODEL = script({ responses: [{ chunks: ['slow ', 'never'], delayMs: 10_000 }, { chunks: ['after'] }] });

let core: Core;
let app: ZodApp;
const logger = pino({ level: 'silent' });
const appOptions = (token: string | undefined, hosts: () => Set<string> | undefined) => testAppOptions(core.manager, logger, { token, hosts });

beforeAll(async () => {
  core = createCore({ logger, home, env: {}, cwd: ws, sandbox: 'workspace-write', approval: 'auto', model: DEFAULT_MODEL });
  ({ app } = await buildApp(appOptions(TOKEN, () => undefined)));
});
afterAll(async () => {
  await app.close();
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${TOKEN}` };
type Method = 'GET' | 'POST' | 'DELETE';
function call(method: Method, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method, url, headers: { ...auth, ...headers }, ...(body !== undefined ? { payload: body as object } : {}) });
}

/** The one error shape: {"error":{"code","message"}}, JSON, with the mapped status. */
function expectError(res: LightMyRequestResponse, status: number, code: HttpErrorCode, message: RegExp | string): void {
  expect({ status: res.statusCode, type: res.headers['content-type'] }).toEqual({ status, type: expect.stringMatching(/^application\/json/) });
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  expect(body.error.code).toBe(code);
  if (typeof message === 'string') expect(body.error.message).toBe(message);
  else expect(body.error.message).toMatch(message);
}

async function newSession(body: Record<string, unknown> = {}): Promise<string> {
  const res = await call('POST', '/session', body);
  expect(res.statusCode).toBe(201);
  return res.json().sessionId as string;
}
const live = (id: string): LiveSession => core.manager.get(id);
/** Resolves on the first event of `type` the session emits from now on. */
const next = (id: string, type: string): Promise<void> =>
  new Promise((resolve) => {
    const off = live(id).subscribe((e) => {
      if (e.type === type) {
        off();
        resolve();
      }
    });
  });

describe('GET /health and GET /openapi.json', () => {
  it('health answers without the token', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, version: 'test', store: 'file' });
  });

  it('the OpenAPI document lists every route and the bearer scheme', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info).toMatchObject({ title: 'ferret HTTP API', version: 'test' });
    expect(doc.components.securitySchemes).toEqual({ bearer: { type: 'http', scheme: 'bearer', description: 'FERRET_SERVER_TOKEN' } });
    expect(doc.security).toEqual([{ bearer: [] }]);
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(routes.sort()).toEqual([
      'DELETE /session/{id}',
      'GET /auth/session',
      'GET /health',
      'GET /models',
      'GET /openapi.json',
      'GET /session',
      'GET /session/{id}',
      'GET /session/{id}/bridge',
      'GET /session/{id}/commands',
      'GET /session/{id}/events',
      'GET /session/{id}/prompts',
      'GET /session/{id}/sandbox',
      'PATCH /session/{id}',
      'POST /auth/login',
      'POST /auth/logout',
      'POST /session',
      'POST /session/{id}/approval',
      'POST /session/{id}/cancel',
      'POST /session/{id}/close',
      'POST /session/{id}/fork',
      'POST /session/{id}/message',
      'POST /session/{id}/mode',
      'POST /session/{id}/model',
      'POST /session/{id}/permission',
      'POST /session/{id}/reasoning',
      'POST /session/{id}/redo',
      'POST /session/{id}/rewind',
      'POST /session/{id}/undo',
    ]);
  });
});

describe('the guard', () => {
  it('401 unauthorized without the token, or with a wrong one, on every route but /health', async () => {
    for (const url of ['/openapi.json', '/session', '/session/abc', '/session/abc/events', '/nope']) {
      const res = await app.inject({ method: 'GET', url });
      expectError(res, 401, 'unauthorized', 'missing or wrong bearer token: send Authorization: Bearer $FERRET_SERVER_TOKEN');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    expectError(await app.inject({ method: 'GET', url: '/session', headers: { authorization: `Bearer ${TOKEN}x` } }), 401, 'unauthorized', /bearer token/);
    expectError(await app.inject({ method: 'POST', url: '/session', payload: {} }), 401, 'unauthorized', /bearer token/);
    expect((await core.manager.list()).sessions.length).toBe(0); // nothing was created
  });

  it('403 forbidden for a Host that is not this server, before the token is looked at', async () => {
    const { app: guarded } = await buildApp(appOptions(TOKEN, () => new Set(['127.0.0.1:5173', 'localhost:5173'])));
    try {
      const bad = await guarded.inject({ method: 'GET', url: '/health', headers: { host: 'evil.example:5173' } });
      expectError(bad, 403, 'forbidden', 'Host header "evil.example:5173" is not this server; use one of 127.0.0.1:5173, localhost:5173');
      expectError(await guarded.inject({ method: 'GET', url: '/session', headers: { host: 'evil.example:5173' } }), 403, 'forbidden', /is not this server/);
      const ok = await guarded.inject({ method: 'GET', url: '/health', headers: { host: '127.0.0.1:5173' } });
      expect(ok.statusCode).toBe(200);
      expectError(await guarded.inject({ method: 'GET', url: '/session', headers: { host: 'LOCALHOST:5173' } }), 401, 'unauthorized', /bearer token/);
    } finally {
      await guarded.close();
    }
  });

  it('without a token set, every route is open', async () => {
    const { app: open } = await buildApp(appOptions(undefined, () => undefined));
    try {
      const res = await open.inject({ method: 'GET', url: '/session' });
      expect(res.statusCode).toBe(200);
      // The document is the same either way (a client generated from it works against both); /health needs nothing.
      const doc = (await open.inject({ method: 'GET', url: '/openapi.json' })).json();
      expect(doc.security).toEqual([{ bearer: [] }]);
      expect(doc.paths['/health'].get.security).toEqual([]);
    } finally {
      await open.close();
    }
  });
});

describe('malformed requests', () => {
  it('404 not_found for an unknown route', async () => {
    expectError(await call('GET', '/nope?x=1'), 404, 'not_found', 'no route GET /nope');
    expectError(await call('DELETE', '/session'), 404, 'not_found', 'no route DELETE /session');
  });

  it('400 invalid_params for a body that is not JSON', async () => {
    const res = await app.inject({ method: 'POST', url: '/session', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"cwd":' });
    expectError(res, 400, 'invalid_params', "Body is not valid JSON but content-type is set to 'application/json'");
  });

  it('413 (code payload_too_large) for a body over the limit', async () => {
    const res = await call('POST', '/session', { cwd: 'x'.repeat((1 << 20) + 10) });
    expectError(res, 413, 'payload_too_large', 'Request body is too large');
  });

  it.each([
    ['/session/bad.id', 'GET'],
    ['/session/..%2F..%2Fetc', 'GET'],
    [`/session/${'a'.repeat(65)}`, 'GET'],
    ['/session/bad!id/message', 'POST'],
    ['/session/bad!id/events', 'GET'],
  ] as const)('400 invalid_params for a bad session id: %s', async (url, method) => {
    const res = await call(method, url, method === 'POST' ? { text: 'x' } : undefined, url.endsWith('/events') ? { accept: 'text/event-stream' } : {});
    expectError(res, 400, 'invalid_params', 'params.id: not a session id (letters, digits, _ and -, at most 64)');
  });

  it.each([
    ['GET', '/session/no-such-session'],
    ['POST', '/session/no-such-session/message'],
    ['POST', '/session/no-such-session/cancel'],
    ['POST', '/session/no-such-session/mode'],
    ['POST', '/session/no-such-session/model'],
    ['POST', '/session/no-such-session/approval'],
    ['POST', '/session/no-such-session/reasoning'],
    ['GET', '/session/no-such-session/sandbox'],
    ['POST', '/session/no-such-session/permission'],
    ['GET', '/session/no-such-session/bridge'],
  ] as const)('404 session_not_found: %s %s', async (method, url) => {
    const bodies: Record<string, unknown> = {
      message: { text: 'x' }, mode: { mode: 'plan' }, model: { model: DEFAULT_MODEL }, approval: { preset: 'auto' }, reasoning: { effort: 'high' }, permission: { id: 'p', decision: 'allow' },
    };
    const res = await call(method, url, method === 'POST' ? (bodies[url.split('/').pop()!] ?? {}) : undefined);
    expectError(res, 404, 'session_not_found', 'no session no-such-session');
  });
});

describe('POST /session', () => {
  it('201 with the description; the body sets cwd, mode and approval', async () => {
    const sub = join(ws, 'sub');
    mkdirSync(sub, { recursive: true });
    const res = await call('POST', '/session', { cwd: sub, mode: 'plan', approval: 'suggest' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/), mode: 'plan', model: DEFAULT_MODEL, sandbox: 'workspace-write', approval: 'suggest', cwd: sub });
  });

  it('an empty object takes the server defaults', async () => {
    const res = await call('POST', '/session', {});
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ mode: 'code', model: DEFAULT_MODEL, sandbox: 'workspace-write', approval: 'auto', cwd: ws });
  });

  // Every field is optional, so is the body: `curl -X POST $U/session` creates a session with the defaults.
  it('no body at all (no content-type) creates a session with the defaults', async () => {
    const res = await app.inject({ method: 'POST', url: '/session', headers: auth });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ sessionId: expect.any(String), mode: 'code', approval: 'auto' });
  });

  // Fastify's JSON parser refuses this before the route sees it.
  it('content-type: application/json with an empty body is refused with 400', async () => {
    const res = await app.inject({ method: 'POST', url: '/session', headers: { ...auth, 'content-type': 'application/json' } });
    expectError(res, 400, 'invalid_params', "Body cannot be empty when content-type is set to 'application/json'");
  });

  it('400 naming the field for a bad body, a missing cwd, an unknown key', async () => {
    expectError(await call('POST', '/session', { mode: 'yolo' }), 400, 'invalid_params', /^mode: /);
    expectError(await call('POST', '/session', { cwd: join(root, 'missing') }), 400, 'invalid_params', `cwd: no such directory: ${join(root, 'missing')}`);
    expectError(await call('POST', '/session', { cwd: join(root, `script-0.json`) }), 400, 'invalid_params', /^cwd: not a directory: /);
    expectError(await call('POST', '/session', { bogus: 1 }), 400, 'invalid_params', 'body: Unrecognized key: "bogus"');
  });

  it('additionalDirectories: extra roots kept and shown by GET /session/:id; a relative or missing one is a 400 naming the field', async () => {
    const extra = join(root, 'extra-root');
    mkdirSync(extra, { recursive: true });
    const id = await newSession({ additionalDirectories: [extra] });
    expect((await call('GET', `/session/${id}`)).json().additionalDirectories).toEqual([extra]);
    expectError(await call('POST', '/session', { additionalDirectories: ['rel/dir'] }), 400, 'invalid_params', /^additionalDirectories\.0: must be an absolute path/);
    expectError(await call('POST', '/session', { additionalDirectories: [join(root, 'gone')] }), 400, 'invalid_params', `additionalDirectories[0]: no such directory: ${join(root, 'gone')}`);
  });

  it('422 model_unavailable for an unknown model; 400 for a scripted file that is missing or malformed', async () => {
    expectError(await call('POST', '/session', { model: 'no-such-model' }), 422, 'model_unavailable', /^Unknown model "no-such-model"/);
    expectError(await call('POST', '/session', { model: `scripted:${join(root, 'absent.json')}` }), 400, 'invalid_params', /^scripted model file .*absent\.json: cannot open it \(ENOENT\)/);
    const bad = script({ responses: [{ chunks: 'not an array' }] });
    expectError(await call('POST', '/session', { model: bad }), 400, 'invalid_params', /field responses\[0\]\.chunks: Invalid input: expected array/);
  });
});

describe('GET /session and GET /session/:id', () => {
  it("the model's title follows the first one after the first turn: the list and the detail show it", async () => {
    const id = await newSession({ model: script({ title: 'Greet the reader', responses: [{ chunks: ['Hi.'] }] }) });
    const named = next(id, 'session_info');
    expect((await call('POST', `/session/${id}/message`, { text: 'say hello to whoever reads this' })).statusCode).toBe(200);
    await named; // the first request's title came before the answer; wait for the model's
    for (let i = 0; i < 100 && live(id).state.title !== 'Greet the reader'; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await call('GET', `/session/${id}`)).json().title).toBe('Greet the reader');
    const listed = (await call('GET', '/session')).json().sessions as Array<Record<string, unknown>>;
    expect(listed.find((x) => x['sessionId'] === id)?.['title']).toBe('Greet the reader');
  });

  it('lists live sessions and describes one after a turn', async () => {
    const id = await newSession();
    const turn = await call('POST', `/session/${id}/message`, { text: 'hi there\nsecond line' });
    expect(turn.statusCode).toBe(200);

    const list = await call('GET', '/session');
    expect(list.statusCode).toBe(200);
    const mine = (list.json().sessions as Array<Record<string, unknown>>).find((s) => s['sessionId'] === id);
    expect(mine).toEqual({
      sessionId: id, cwd: ws, title: 'hi there', model: DEFAULT_MODEL, mode: 'code',
      createdAt: expect.any(String), updatedAt: expect.any(String), costUsd: 0, status: 'idle', live: true, approval: 'auto',
    });

    const detail = await call('GET', `/session/${id}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.json()).toEqual({
      sessionId: id, mode: 'code', model: DEFAULT_MODEL, sandbox: 'workspace-write', approval: 'auto', cwd: ws,
      title: 'hi there', status: 'idle', usage: { input: 10, output: 4, cache: 0, reasoning: 0 }, costUsd: 0, turns: 1,
      lastSeq: live(id).lastSeq, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });
});

describe('POST /session/:id/message', () => {
  it('waits for the turn and answers the TurnResult', async () => {
    const id = await newSession();
    const res = await call('POST', `/session/${id}/message`, { text: 'hello' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ turnId: expect.stringMatching(/^turn_/), stopReason: 'end_turn', message: { role: 'assistant', text: 'Hello from HTTP.' } });
  });

  it('?wait=false answers 202 with the turn id at once', async () => {
    const id = await newSession();
    const res = await call('POST', `/session/${id}/message?wait=false`, { text: 'hello' });
    expect(res.statusCode).toBe(202);
    const { turnId } = res.json();
    expect(res.json()).toEqual({ turnId: expect.stringMatching(/^turn_/) });
    await live(id).settled();
    const detail = (await call('GET', `/session/${id}`)).json();
    expect(detail).toMatchObject({ turns: 1, status: 'idle' });
    expect(live(id).state.history.at(-1)).toEqual({ role: 'assistant', text: 'Hello from HTTP.', toolCalls: [] });
    expect(turnId).not.toBe('');
  });

  it('409 session_busy on a second message while a turn runs; cancel ends the first', async () => {
    const id = await newSession({ model: SLOW_MODEL });
    const chunk = next(id, 'message_chunk');
    const first = await call('POST', `/session/${id}/message?wait=false`, { text: 'slow' });
    expect(first.statusCode).toBe(202);
    await chunk;
    expect((await call('GET', `/session/${id}`)).json().status).toBe('running');
    const second = await call('POST', `/session/${id}/message`, { text: 'again' });
    expectError(second, 409, 'session_busy', `session ${id} is running turn ${first.json().turnId}; wait for it to end or cancel it`);

    const cancel = await call('POST', `/session/${id}/cancel`);
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json()).toEqual({ ok: true });
    await live(id).settled();
    expect((await call('GET', `/session/${id}`)).json().status).toBe('idle');
  });

  it('a waiting message answers stopReason cancelled when the turn is cancelled', async () => {
    const id = await newSession({ model: SLOW_MODEL });
    const chunk = next(id, 'message_chunk');
    const pending = call('POST', `/session/${id}/message`, { text: 'slow' });
    await chunk;
    expect((await call('POST', `/session/${id}/cancel`)).json()).toEqual({ ok: true });
    const res = await pending;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ turnId: expect.any(String), stopReason: 'cancelled', message: { role: 'assistant', text: 'slow ' } });
  });

  it('a turn that fails answers 200 with stopReason error and says why', async () => {
    const id = await newSession({ model: script({ responses: [{ error: 'provider exploded' }] }) });
    const res = await call('POST', `/session/${id}/message`, { text: 'go' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ turnId: expect.any(String), stopReason: 'error', message: { role: 'assistant', text: '' }, error: expect.stringContaining('provider exploded') });
  });

  it('cancel with no turn running is fine', async () => {
    const id = await newSession();
    expect((await call('POST', `/session/${id}/cancel`)).json()).toEqual({ ok: true });
  });

  it('400 naming the field for a bad body or query', async () => {
    const id = await newSession();
    expectError(await call('POST', `/session/${id}/message`, {}), 400, 'invalid_params', /^text: /);
    expectError(await call('POST', `/session/${id}/message`, { text: 5 }), 400, 'invalid_params', /^text: /);
    expectError(await call('POST', `/session/${id}/message?wait=maybe`, { text: 'x' }), 400, 'invalid_params', /^querystring\.wait: /);
    expectError(await call('POST', `/session/${id}/message`, { text: 'x' }, { 'x-ferret-client': 'no/slashes' }), 400, 'invalid_params', /x-ferret-client/);
    expect(live(id).state.turns).toBe(0);
  });

  it('x-ferret-client names the sender: the prompt\'s origin is http:NAME, else http', async () => {
    const id = await newSession();
    expect((await call('POST', `/session/${id}/message`, { text: 'from the bot' }, { 'x-ferret-client': 'ci-bot' })).statusCode).toBe(200);
    expect((await call('POST', `/session/${id}/message`, { text: 'anonymous' })).statusCode).toBe(200);
    const prompts = (await call('GET', `/session/${id}/prompts?after=0`)).json().prompts as { text: string; origin?: string }[];
    expect(prompts.map((p) => [p.text, p.origin])).toEqual([
      ['from the bot', 'http:ci-bot'],
      ['anonymous', 'http'],
    ]);
  });
});

describe('the knobs', () => {
  it('POST mode switches the agent mode; a bad mode is 400', async () => {
    const id = await newSession();
    const res = await call('POST', `/session/${id}/mode`, { mode: 'plan' });
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 200, body: { mode: 'plan' } });
    expect(live(id).state.mode).toBe('plan');
    expectError(await call('POST', `/session/${id}/mode`, { mode: 'yolo' }), 400, 'invalid_params', /^mode: /);
  });

  it('POST model switches to a runnable model; unknown is 422 model_unavailable, a bad scripted path 400 invalid_params', async () => {
    const id = await newSession();
    const other = script({ responses: [{ chunks: ['other model'] }] });
    const res = await call('POST', `/session/${id}/model`, { model: other });
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 200, body: { model: other } });
    expect((await call('POST', `/session/${id}/message`, { text: 'x' })).json().message.text).toBe('other model');

    expectError(await call('POST', `/session/${id}/model`, { model: 'no-such-model' }), 422, 'model_unavailable', /^Unknown model "no-such-model"/);
    expectError(await call('POST', `/session/${id}/model`, { model: `scripted:${join(root, 'absent.json')}` }), 400, 'invalid_params', /absent\.json: cannot open it \(ENOENT\)/);
    expectError(await call('POST', `/session/${id}/model`, { model: '' }), 400, 'invalid_params', /^model: /);
    expect(live(id).state.model).toBe(other);
  });

  it('POST approval switches the preset live and answers old and new', async () => {
    const id = await newSession();
    const res = await call('POST', `/session/${id}/approval`, { preset: 'suggest' });
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 200, body: { old: 'auto', new: 'suggest' } });
    expect((await call('POST', `/session/${id}/approval`, { preset: 'full-auto' })).json()).toEqual({ old: 'suggest', new: 'full-auto' });
    expectError(await call('POST', `/session/${id}/approval`, { preset: 'always' }), 400, 'invalid_params', /^preset: /);
  });

  it('GET sandbox answers the server mode; GET bridge answers not attached', async () => {
    const id = await newSession();
    expect((await call('GET', `/session/${id}/sandbox`)).json()).toEqual({ mode: 'workspace-write' });
    const bridge = await call('GET', `/session/${id}/bridge`);
    expect({ status: bridge.statusCode, body: bridge.json() }).toEqual({ status: 200, body: { attached: false, relay: null, pairingUrl: null, devices: 0, lastError: null, reconnects: 0 } });
  });
});

describe('POST /session/:id/permission', () => {
  it('404 permission_not_found for an unknown id; 400 for a bad decision', async () => {
    const id = await newSession();
    expectError(await call('POST', `/session/${id}/permission`, { id: 'perm_nope', decision: 'allow' }), 404, 'permission_not_found', 'no pending permission request perm_nope');
    expectError(await call('POST', `/session/${id}/permission`, { id: 'perm_nope', decision: 'maybe' }), 400, 'invalid_params', /^decision: /);
  });

  it('allow settles a pending request (the call runs); a second answer is 409 already_decided', async () => {
    const model = script({ responses: [{ toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'perm.txt', content: 'ok' } }] }, { chunks: ['written'] }] });
    const id = await newSession({ model, approval: 'suggest' });
    const asked = next(id, 'permission_requested');
    expect((await call('POST', `/session/${id}/message?wait=false`, { text: 'write it' })).statusCode).toBe(202);
    await asked;
    expect(live(id).pendingPermissions()).toEqual(['perm_w1']);
    expect(existsSync(join(ws, 'perm.txt'))).toBe(false);

    const res = await call('POST', `/session/${id}/permission`, { id: 'perm_w1', decision: 'allow' });
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 200, body: { ok: true } });
    expectError(await call('POST', `/session/${id}/permission`, { id: 'perm_w1', decision: 'deny' }), 409, 'already_decided', 'permission perm_w1 was already decided (allow)');
    await live(id).settled();
    expect(readFileSync(join(ws, 'perm.txt'), 'utf8')).toBe('ok');
    expect(live(id).state.history.at(-1)).toEqual({ role: 'assistant', text: 'written', toolCalls: [] });
  });
});

describe('GET /session/:id/events (refusals only)', () => {
  const sse = { accept: 'text/event-stream' };
  it('404 for an unknown session, 401 without the token', async () => {
    expectError(await call('GET', '/session/no-such-session/events', undefined, sse), 404, 'session_not_found', 'no session no-such-session');
    expectError(await app.inject({ method: 'GET', url: '/session/no-such-session/events', headers: sse }), 401, 'unauthorized', /bearer token/);
  });

  it('400 for a Last-Event-ID that is not a frame id', async () => {
    const id = await newSession();
    expectError(await call('GET', `/session/${id}/events`, undefined, { ...sse, 'last-event-id': 'yesterday' }), 400, 'invalid_params', 'Last-Event-ID: "yesterday" is not a frame id of this server (expected SEQ or SEQ.K)');
  });
});
