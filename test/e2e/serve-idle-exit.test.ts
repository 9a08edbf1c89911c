import { createInterface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api } from '../support/http.mjs';
import { exited, spawnFerret, stopChild } from '../support/spawn.mjs';
import { SseClient } from '../support/sse.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';

// `serve --idle-exit`: the server an editor starts detached (docs/ide.md, VS Code) ends by itself
// once no client has been connected and no turn has worked for the period, and not before. A
// turn that waits on a person nobody can see (a permission question, a write held for review) is
// stopped and the server goes; a working turn gets a ceiling of 15 periods.

let env: TempEnv | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child) await stopChild(child, 'SIGKILL');
  env?.cleanup();
  env = child = undefined;
});

const TOKEN = 'idle-exit-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** Starts `serve --http --no-stdio --idle-exit <s>`; resolves with its URL once it listens. */
async function start(idleSeconds: string, model: string, approval = 'full-auto'): Promise<string> {
  env ??= tempEnv();
  child = spawnFerret(['--http', '--port', '0', '--no-stdio', '--idle-exit', idleSeconds, '--model', `scripted:${model}`, '--approval', approval], {
    cwd: env.ws,
    env: { CHIMERA_HOME: env.home, FERRET_SERVER_TOKEN: TOKEN, FERRET_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = createInterface({ input: child.stderr! });
  return new Promise((resolve, reject) => {
    lines.on('line', (l) => {
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(l);
      if (m && l.includes('listening')) resolve(m[1]!);
    });
    void exited(child!).then((c) => reject(new Error(`exited ${c} before listening`)));
  });
}

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const rpc = (id: number | string, method: string, params: unknown) => ({ jsonrpc: '2.0', id, method, params });
const messages = (s: SseClient): Msg[] => s.frames.map((f: { data: Msg }) => f.data);
/** The VS Code extension's capabilities: it reads and writes through the editor and holds each write for review. */
const reviewing = (more: Record<string, unknown> = {}) => ({ fs: { readTextFile: true, writeTextFile: true }, _meta: { 'ferret.dev': { reviewsWrites: true, ...more } } });

/** The session's log as the server left it (read after it exited). */
function logged(sessionId: string): Msg[] {
  const text = readFileSync(join(env!.home, 'eventlog', `ferret-${sessionId}`, 'events.jsonl'), 'utf8');
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Msg);
}

/** The log of a turn stopped because nobody could see it: the notice saying why, then turn_end cancelled. */
function expectStoppedUnseen(sessionId: string, why: string): void {
  const events = logged(sessionId);
  const notice = events.findIndex((e) => e['type'] === 'notice' && String(e['data'].text).includes(why));
  const end = events.findIndex((e) => e['type'] === 'turn_end');
  expect(notice, JSON.stringify(events.map((e) => e['type']))).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(notice);
  expect(events[end]!['data'].stopReason).toBe('cancelled');
}

const exitWithin = (ms: number) => Promise.race([exited(child!).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('serve --idle-exit', () => {
  it('stays while a client is connected or a turn runs, then exits by itself once nobody is', async () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'model.json', { responses: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 2.5' } }] }, { chunks: ['slept'] }] });
    const url = await start('1', model);
    const created = await fetch(`${url}/session`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(201);
    const { sessionId } = (await created.json()) as { sessionId: string };

    // An SSE reader is a client: 2.5 s of it keeps a 1 s idle server up.
    const reader = new AbortController();
    const events = await fetch(`${url}/session/${sessionId}/events`, { headers: auth, signal: reader.signal });
    expect(events.status).toBe(200);
    expect(await exitWithin(2500)).toBe(false);
    reader.abort();

    // A turn with nobody watching keeps it up too (the prompt is fire-and-forget: its request ends at once).
    const sent = await fetch(`${url}/session/${sessionId}/message?wait=false`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'sleep' }) });
    expect(sent.status).toBeLessThan(300);
    expect(await exitWithin(2000)).toBe(false);

    // The turn ends (~2.5 s), then a quiet second: it goes, cleanly.
    const t0 = Date.now();
    expect(await exitWithin(8000)).toBe(true);
    expect(child!.exitCode).toBe(0);
    expect(Date.now() - t0).toBeGreaterThan(500);
  }, 30_000);

  it('a permission question nobody can answer does not keep it: the turn is stopped (logged why) and it exits', async () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'model.json', { responses: [{ toolCalls: [{ name: 'bash', arguments: { command: 'touch made-it' } }] }, { chunks: ['done'] }] });
    const url = await start('1', model, 'suggest');
    const created = await api(url, 'POST', '/session', {}, TOKEN);
    const sessionId = created.body.sessionId as string;
    const watch = new SseClient(url, `/session/${sessionId}/events`, { token: TOKEN });
    await api(url, 'POST', `/session/${sessionId}/message?wait=false`, { text: 'make it' }, TOKEN);
    await watch.waitFor(() => watch.frames.some((f: { data: Msg }) => f.data['kind'] === 'permission_request'));
    watch.close(); // the last client goes; the question stays unanswered

    expect(await exitWithin(6000)).toBe(true);
    expect(child!.exitCode).toBe(0);
    expectStoppedUnseen(sessionId, 'waited on a person');
  }, 30_000);

  it('a write held for review: a window back within the period finds the turn waiting; once none is, it is stopped and the server exits', async () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'model.json', { responses: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } }] }, { chunks: ['written'] }] });
    const url = await start('2', model);
    const init = await api(url, 'POST', '/acp/win-1', rpc(1, 'initialize', { protocolVersion: 1, clientCapabilities: reviewing() }), TOKEN);
    const clientId = init.body.result.agentCapabilities._meta['ferret.dev'].clientId as string;
    const one = new SseClient(url, '/acp/win-1', { token: TOKEN });
    const created = await api(url, 'POST', '/acp/win-1', rpc(2, 'session/new', { cwd: env.ws, mcpServers: [] }), TOKEN);
    await one.waitFor(() => created.body.result !== undefined || messages(one).some((m) => m['id'] === 2));
    const sessionId = (created.body.result ?? messages(one).find((m) => m['id'] === 2)!['result']).sessionId as string;
    // The prompt's POST waits for its answer, as the extension's does: a reload ends it with the stream.
    const prompting = new AbortController();
    const body = JSON.stringify(rpc(3, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write it' }] }));
    void fetch(`${url}/acp/win-1`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body, signal: prompting.signal }).catch(() => undefined);
    await one.waitFor(() => messages(one).some((m) => m['method'] === 'fs/write_text_file'));
    one.close(); // the window reloads
    prompting.abort();

    // Back after 1 s of a 2 s period: the turn still runs, waiting on the same write.
    await new Promise((r) => setTimeout(r, 1000));
    await api(url, 'POST', '/acp/win-2', rpc(1, 'initialize', { protocolVersion: 1, clientCapabilities: reviewing({ continues: clientId }) }), TOKEN);
    const two = new SseClient(url, '/acp/win-2', { token: TOKEN });
    const loaded = await api(url, 'POST', '/acp/win-2', rpc(2, 'session/load', { sessionId, cwd: env.ws, mcpServers: [] }), TOKEN);
    await two.waitFor(() => loaded.body.result !== undefined || messages(two).some((m) => m['id'] === 2));
    expect((loaded.body.result ?? messages(two).find((m) => m['id'] === 2)!['result'])._meta['ferret.dev'].status).toBe('running');
    expect(await exitWithin(2500)).toBe(false); // a window is connected: it stays, however long
    two.close(); // every window closed, the write still unanswered

    expect(await exitWithin(6000)).toBe(true);
    expect(child!.exitCode).toBe(0);
    expectStoppedUnseen(sessionId, 'waited on a person');
  }, 30_000);

  it('a working turn with no client is stopped after 15 periods', async () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'model.json', { responses: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 60' } }] }, { chunks: ['slept'] }] });
    const url = await start('0.2', model);
    const created = await api(url, 'POST', '/session', {}, TOKEN);
    const sessionId = created.body.sessionId as string;
    await api(url, 'POST', `/session/${sessionId}/message?wait=false`, { text: 'sleep' }, TOKEN);
    const t0 = Date.now();
    expect(await exitWithin(2000)).toBe(false); // working: more than the 0.2 s period
    expect(await exitWithin(8000)).toBe(true); // 15 × 0.2 s = 3 s, not the command's 60 s
    expect(Date.now() - t0).toBeGreaterThan(2500);
    expect(child!.exitCode).toBe(0);
    expectStoppedUnseen(sessionId, 'ran 3 s with no window connected');
  }, 30_000);

  it('needs --http', async () => {
    env = tempEnv();
    child = spawnFerret(['--idle-exit', '5'], { cwd: env.ws, env: { CHIMERA_HOME: env.home }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exited(child)).toBe(2);
    expect(err).toContain('--idle-exit: needs --http');
  });
});
