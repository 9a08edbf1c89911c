import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { V1Client } from '../support/acp-v1-client.js';
import { FerretClient } from '../support/ferret-client.mjs';
import { api, listeningUrl, type Json } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { CHIMERA, stopChild, track } from '../support/spawn.mjs';
import { SseClient, type SseFrame } from '../support/sse.mjs';
import { StderrLog } from '../support/stderr-log.mjs';
import { writeScript } from '../support/temp.mjs';

// Sessions leaving memory and coming back, as a user of each surface sees it: the built CLI over
// real pipes and loopback HTTP, the scripted model. Idle release (FERRET_SESSION_IDLE_MS), close
// (HTTP and ACP v1), cursor paging on HTTP, ACP v1 and the ferret dialect, and many sessions
// under `ulimit -n 256`, then a SIGKILL and a fresh server that must list every one of them.

const IDLE = { FERRET_SESSION_IDLE_MS: '300' };
const INFO = { FERRET_LOG_LEVEL: 'info' };
/** Turn 1 writes a file (so the IDE frames' counters move) and answers; turn 2 answers. */
const TWO_TURNS = {
  responses: [
    { chunks: ['writing ', 'a.txt'], toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A\n' } }] },
    { chunks: ['first ', 'answer'] },
    { chunks: ['second ', 'answer'] },
  ],
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `f` until it gives something truthy; every wait is bounded. */
async function until<T>(what: string, f: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** The session as GET /session lists it (listing never keeps a session in memory). */
async function listed(url: string, id: string): Promise<Json | undefined> {
  const r = await api(url, 'GET', '/session?limit=10000');
  expect(r.status).toBe(200);
  return (r.body['sessions'] as Json[]).find((s) => s['sessionId'] === id);
}

const released = (url: string, id: string) => until(`session ${id} to leave memory`, async () => (await listed(url, id))?.['live'] === false);

/** The event logs the process holds open now (its /proc/<pid>/fd), as paths. */
function openLogs(pid: number): string[] {
  const out: string[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.endsWith('/events.jsonl')) out.push(target);
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}

const logOf = (home: string, id: string) => join(home, 'eventlog', `ferret-${id}`, 'events.jsonl');

const frameKey = (f: SseFrame) => `${f.id} ${f.event} ${f.text}`;
/** SSE ids are SEQ or SEQ.K: as numbers to compare. */
const idParts = (id: string) => id.split('.').map(Number) as [number, number?];
const before = (a: string, b: string) => {
  const [as, ak = 0] = idParts(a);
  const [bs, bk = 0] = idParts(b);
  return as < bs || (as === bs && ak < bk);
};

interface Listed {
  sessionId: string;
  updatedAt: string;
}

/** Newest first (updatedAt descending, ties by id ascending): the index of the first pair out of order, or -1. */
function outOfOrder(list: Listed[]): number {
  for (let i = 1; i < list.length; i++) {
    const a = list[i - 1]!;
    const b = list[i]!;
    if (a.updatedAt < b.updatedAt || (a.updatedAt === b.updatedAt && a.sessionId >= b.sessionId)) return i;
  }
  return -1;
}

async function walkHttp(url: string, limit: number): Promise<{ list: Listed[]; pages: number }> {
  const list: Listed[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 10_000; pages++) {
    const r = await api(url, 'GET', `/session?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status, r.text).toBe(200);
    list.push(...(r.body['sessions'] as Listed[]));
    cursor = r.body['nextCursor'] as string | undefined;
    if (!cursor) return { list, pages };
  }
  throw new Error('more than 10,000 pages');
}

async function walkV1(c: V1Client): Promise<{ list: Listed[]; pages: number }> {
  const list: Listed[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 1000; pages++) {
    const r: acp.ListSessionsResponse = await c.agent.request('session/list', cursor ? { cursor } : {});
    list.push(...r.sessions.map((s) => ({ sessionId: s.sessionId, updatedAt: s.updatedAt ?? '' })));
    cursor = r.nextCursor ?? undefined;
    if (!cursor) return { list, pages };
  }
  throw new Error('more than 1,000 pages');
}

async function walkFerret(c: FerretClient, limit: number): Promise<{ list: Listed[]; pages: number }> {
  const list: Listed[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages <= 10_000; pages++) {
    const r = await c.call('session/list', { limit, ...(cursor ? { cursor } : {}) });
    list.push(...(r['sessions'] as Listed[]));
    cursor = r['nextCursor'] as string | undefined;
    if (!cursor) return { list, pages };
  }
  throw new Error('more than 10,000 pages');
}

/** Each id once, and exactly the ids made. */
function expectEveryOnce(list: Listed[], made: readonly string[]): void {
  const ids = list.map((s) => s.sessionId);
  const dup = ids.filter((x, i) => ids.indexOf(x) !== i);
  expect(dup, 'sessions listed twice').toEqual([]);
  const seen = new Set(ids);
  expect(made.filter((x) => !seen.has(x)), 'sessions never listed').toEqual([]);
  expect(ids.length).toBe(made.length);
}

/** The text of every `kind` update (user_message_chunk, agent_message_chunk), joined. */
const textOf = (ups: acp.SessionUpdate[], kind: 'user_message_chunk' | 'agent_message_chunk') =>
  ups.flatMap((u) => (u.sessionUpdate === kind && u.content.type === 'text' ? [u.content.text] : [])).join('');

describe('idle sessions leave memory and come back on demand', () => {
  const t = ferretPerTest();

  it('HTTP: GET, a second message and an SSE resume with Last-Event-ID work across releases, every frame once and in order', async () => {
    const model = writeScript(t.env.ws, 'two.json', TWO_TURNS);
    const { proc, url } = await t.startHttp(['--model', `scripted:${model}`, '--no-stdio'], IDLE);
    const pid = proc.child.pid!;
    const created = await api(url, 'POST', '/session', {});
    expect(created.status).toBe(201);
    const id = created.body['sessionId'] as string;
    const first = await api(url, 'POST', `/session/${id}/message`, { text: 'one' });
    expect(first.body).toMatchObject({ stopReason: 'end_turn', message: { text: 'first answer' } });
    const detail = (await api(url, 'GET', `/session/${id}`)).body;

    // Idle: it leaves memory, and its log is no longer open in the server.
    await released(url, id);
    expect(openLogs(pid)).not.toContain(logOf(t.env.home, id));
    expect(existsSync(join(t.env.home, 'eventlog', `ferret-${id}`, 'lock'))).toBe(false);

    // GET names it: loaded back, the same state.
    const again = await api(url, 'GET', `/session/${id}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ sessionId: id, turns: 1, lastSeq: detail['lastSeq'], status: 'idle', costUsd: detail['costUsd'] });
    await released(url, id);

    // A reader replays the whole session and is cut off; the session leaves memory again.
    const r1 = new SseClient(url, `/session/${id}/events`, { lastEventId: '0' });
    t.adopt({ close: async () => r1.close() });
    expect(await r1.opened).toBe(200);
    await r1.waitFor((fs) => fs.some((f) => f.event === 'result'));
    r1.close();
    await r1.ended;
    const got1 = [...r1.frames];
    const resumeFrom = r1.lastEventId;
    expect(resumeFrom).toBe(got1.at(-1)!.id);
    await released(url, id);

    // The conversation goes on: the scripted model's next response, the history intact.
    const second = await api(url, 'POST', `/session/${id}/message`, { text: 'two' });
    expect(second.body).toMatchObject({ stopReason: 'end_turn', message: { text: 'second answer' } });
    const prompts = await api(url, 'GET', `/session/${id}/prompts`);
    expect((prompts.body['prompts'] as Json[]).map((p) => p['text'])).toEqual(['one', 'two']);
    expect((await api(url, 'GET', `/session/${id}`)).body).toMatchObject({ turns: 2 });
    await released(url, id);

    // Resuming after the last frame it got, across two releases: exactly the frames after it.
    const r2 = new SseClient(url, `/session/${id}/events`, { lastEventId: resumeFrom });
    const r3 = new SseClient(url, `/session/${id}/events`, { lastEventId: '0' }); // the reference: the whole session
    t.adopt({ close: async () => (r2.close(), r3.close()) });
    await r2.waitFor((fs) => fs.some((f) => f.event === 'result'));
    await r3.waitFor((fs) => fs.filter((f) => f.event === 'result').length === 2);
    await sleep(100); // nothing more may follow
    const all = [...got1, ...r2.frames];
    expect(all.map(frameKey)).toEqual(r3.frames.map(frameKey));
    for (let i = 1; i < all.length; i++) expect(before(all[i - 1]!.id, all[i]!.id), `${all[i - 1]!.id} then ${all[i]!.id}`).toBe(true);
    expect(r2.frames.filter((f) => f.event === 'result').map((f) => f.data['message']['text'])).toEqual(['second answer']);
    expect(r2.frames.every((f) => !before(f.id, resumeFrom) && f.id !== resumeFrom)).toBe(true);

    // From the middle of turn 1 (an IDE frame's SEQ.K id), once more after a release.
    r2.close();
    r3.close();
    await released(url, id);
    const at = r3.frames.findIndex((f, i) => i > 2 && f.id.includes('.') && f.event === 'code/diff');
    expect(at).toBeGreaterThan(0);
    const r4 = new SseClient(url, `/session/${id}/events`, { lastEventId: r3.frames[at]!.id });
    t.adopt({ close: async () => r4.close() });
    await r4.waitFor((fs) => fs.filter((f) => f.event === 'result').length === 2);
    await sleep(100);
    expect(r4.frames.map(frameKey)).toEqual(r3.frames.slice(at + 1).map(frameKey));
  });

  it('ACP v1: session/load of a released session replays its history, then session/prompt continues it', async () => {
    const model = writeScript(t.env.ws, 'two.json', TWO_TURNS);
    const c = t.adopt(new V1Client(['--cwd', t.env.ws, '--model', `scripted:${model}`, '--http', '--port', '0'], { CHIMERA_HOME: t.env.home, ...IDLE, ...INFO }));
    const url = await c.httpUrl();
    await c.initialize();
    const id = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    expect((await api(url, 'POST', `/session/${id}/message`, { text: 'one' })).body).toMatchObject({ message: { text: 'first answer' } });
    await released(url, id);

    const loaded = await c.agent.request('session/load', { sessionId: id, cwd: t.env.ws, mcpServers: [] });
    expect(loaded).toMatchObject({ modes: { currentModeId: 'code' } });
    const replay = c.of(id);
    expect(textOf(replay, 'user_message_chunk')).toBe('one');
    expect(textOf(replay, 'agent_message_chunk')).toBe('writing a.txtfirst answer');
    expect(replay.filter((u) => u.sessionUpdate === 'tool_call')).toHaveLength(1);
    // Attached to an editor now: it stays in memory however long it is idle.
    await sleep(700);
    expect((await listed(url, id))?.['live']).toBe(true);

    const n = c.of(id).length;
    const r = await c.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'two' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(textOf(c.of(id).slice(n), 'agent_message_chunk')).toBe('second answer');
    expect((await api(url, 'GET', `/session/${id}`)).body).toMatchObject({ turns: 2 });
    expect(c.schemaErrors()).toEqual([]);
  });

  it('ACP v1: Stop pressed right behind a prompt to a released session (still loading) cancels that prompt', async () => {
    const slow = { responses: [{ chunks: ['hello'] }, { chunks: ['a', 'b', 'c', 'd', 'e', 'f'], delayMs: 400 }] };
    const model = writeScript(t.env.ws, 'slow.json', slow);
    const c = t.adopt(new V1Client(['--cwd', t.env.ws, '--model', `scripted:${model}`, '--http', '--port', '0'], { CHIMERA_HOME: t.env.home, ...IDLE, ...INFO }));
    const url = await c.httpUrl();
    await c.initialize();
    const id = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    await api(url, 'POST', `/session/${id}/message`, { text: 'hi' });
    await released(url, id);
    const t0 = Date.now();
    const prompt = c.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'long' }] });
    await c.agent.notify('session/cancel', { sessionId: id });
    expect(((await prompt) as { stopReason: string }).stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(2000); // the slow reply takes 2.4 s when the Stop is lost
    expect(c.stderr).not.toMatch(/notification failed/);
  });

  it('ferret dialect: session/load of a released session replays its history, then session/message continues it', async () => {
    const model = writeScript(t.env.ws, 'two.json', TWO_TURNS);
    const { proc, url } = await t.startHttp(['--model', `scripted:${model}`], IDLE);
    await proc.call('initialize', {});
    const id = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    expect((await api(url, 'POST', `/session/${id}/message`, { text: 'one' })).body).toMatchObject({ message: { text: 'first answer' } });
    await released(url, id);

    const loaded = await proc.call('session/load', { sessionId: id });
    expect(loaded).toMatchObject({ sessionId: id, mode: 'code' });
    const replay = proc.updates(id);
    expect(replay.filter((u) => u['kind'] === 'user_message_chunk').map((u) => u['text'])).toEqual(['one']);
    expect(replay.filter((u) => u['kind'] === 'agent_message_chunk').map((u) => u['text']).join('')).toBe('writing a.txtfirst answer');
    expect(replay.filter((u) => u['kind'] === 'turn_end')).toHaveLength(1);
    const seqs = replay.map((u) => u['seq'] as number);
    expect(seqs.every((s, i) => i === 0 || s >= seqs[i - 1]!)).toBe(true);

    const n = proc.updates(id).length;
    const r = await proc.call('session/message', { sessionId: id, text: 'two' });
    expect(r).toMatchObject({ stopReason: 'end_turn', message: { text: 'second answer' } });
    expect(proc.updates(id).slice(n).filter((u) => u['kind'] === 'agent_message_chunk').map((u) => u['text']).join('')).toBe('second answer');
  });
});

describe('closing a session releases it now', () => {
  const t = ferretPerTest();

  it('HTTP POST /session/:id/close: the session leaves memory (its log closed, its lock given back) and a later message loads it back', async () => {
    const model = writeScript(t.env.ws, 'two.json', TWO_TURNS);
    const { proc, url } = await t.startHttp(['--model', `scripted:${model}`, '--no-stdio']);
    const pid = proc.child.pid!;
    const id = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    expect((await api(url, 'POST', `/session/${id}/message`, { text: 'one' })).body).toMatchObject({ message: { text: 'first answer' } });
    expect((await listed(url, id))?.['live']).toBe(true);
    expect(openLogs(pid)).toContain(logOf(t.env.home, id));

    const closed = await api(url, 'POST', `/session/${id}/close`);
    expect(closed).toMatchObject({ status: 200, body: { ok: true } });
    expect((await listed(url, id))?.['live']).toBe(false);
    expect(openLogs(pid)).not.toContain(logOf(t.env.home, id));
    expect(existsSync(join(t.env.home, 'eventlog', `ferret-${id}`, 'lock'))).toBe(false);

    const second = await api(url, 'POST', `/session/${id}/message`, { text: 'two' });
    expect(second.body).toMatchObject({ stopReason: 'end_turn', message: { text: 'second answer' } });
    expect((await listed(url, id))?.['live']).toBe(true);
    expect((await api(url, 'GET', `/session/${id}`)).body).toMatchObject({ turns: 2 });

    const unknown = await api(url, 'POST', '/session/no-such-session/close');
    expect(unknown.status).toBe(404);
    expect(unknown.body['error']['code']).toBe('session_not_found');
  });

  it('HTTP close while a turn runs: the session stays until the turn ends, then leaves', async () => {
    const model = writeScript(t.env.ws, 'slow.json', { responses: [{ chunks: ['a', 'b', 'c', 'd'], delayMs: 150 }, { chunks: ['next'] }] });
    const { url } = await t.startHttp(['--model', `scripted:${model}`, '--no-stdio']);
    const id = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    expect((await api(url, 'POST', `/session/${id}/message?wait=false`, { text: 'slow' })).status).toBe(202);
    expect((await api(url, 'POST', `/session/${id}/close`)).body).toEqual({ ok: true });
    expect(await listed(url, id)).toMatchObject({ live: true, status: 'running' });
    await until('the turn to end', async () => (await listed(url, id))?.['status'] === 'idle');
    await until('the closed session to leave memory once its turn ended', async () => (await listed(url, id))?.['live'] === false, 3000);
    expect((await api(url, 'POST', `/session/${id}/message`, { text: 'again' })).body).toMatchObject({ message: { text: 'next' } });
  });

  it('ACP v1 session/close: the session leaves memory, and session/load brings it back with its history', async () => {
    const model = writeScript(t.env.ws, 'two.json', TWO_TURNS);
    const c = t.adopt(new V1Client(['--cwd', t.env.ws, '--model', `scripted:${model}`, '--http', '--port', '0'], { CHIMERA_HOME: t.env.home, ...INFO }));
    const url = await c.httpUrl();
    await c.initialize();
    const { sessionId: id } = await c.agent.request('session/new', { cwd: t.env.ws, mcpServers: [] });
    expect((await c.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'one' }] })).stopReason).toBe('end_turn');
    expect((await listed(url, id))?.['live']).toBe(true);
    expect(openLogs(c.child.pid!)).toContain(logOf(t.env.home, id));

    expect(await c.agent.request('session/close', { sessionId: id })).toEqual({});
    expect((await listed(url, id))?.['live']).toBe(false);
    expect(openLogs(c.child.pid!)).not.toContain(logOf(t.env.home, id));

    const n = c.of(id).length;
    await c.agent.request('session/load', { sessionId: id, cwd: t.env.ws, mcpServers: [] });
    const replay = c.of(id).slice(n);
    expect(textOf(replay, 'user_message_chunk')).toBe('one');
    expect(textOf(replay, 'agent_message_chunk')).toBe('writing a.txtfirst answer');
    const m = c.of(id).length;
    expect((await c.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'two' }] })).stopReason).toBe('end_turn');
    expect(textOf(c.of(id).slice(m), 'agent_message_chunk')).toBe('second answer');
    expect(c.schemaErrors()).toEqual([]);
  });

  it('ACP v1 session/close mid-turn: the turn is cancelled and the session leaves memory once it has ended', async () => {
    const model = writeScript(t.env.ws, 'slow.json', { responses: [{ chunks: Array.from({ length: 20 }, (_, i) => `c${i} `), delayMs: 100 }, { chunks: ['after'] }] });
    const c = t.adopt(new V1Client(['--cwd', t.env.ws, '--model', `scripted:${model}`, '--http', '--port', '0'], { CHIMERA_HOME: t.env.home, ...INFO }));
    const url = await c.httpUrl();
    await c.initialize();
    const { sessionId: id } = await c.agent.request('session/new', { cwd: t.env.ws, mcpServers: [] });
    const prompt = c.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'long' }] });
    await c.waitFor((msg) => msg['params']?.update?.sessionUpdate === 'agent_message_chunk');
    expect(await c.agent.request('session/close', { sessionId: id })).toEqual({});
    expect((await prompt).stopReason).toBe('cancelled');
    await until('the closed session to leave memory once its turn ended', async () => (await listed(url, id))?.['live'] === false, 3000);
    await c.agent.request('session/load', { sessionId: id, cwd: t.env.ws, mcpServers: [] });
    expect((await c.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'next' }] })).stopReason).toBe('end_turn');
    expect(c.schemaErrors()).toEqual([]);
  });
});

describe('session/list order while sessions are live', () => {
  const t = ferretPerTest();

  it('a live session that changed since it was last saved (approval, a running turn) is listed where its updatedAt puts it', async () => {
    // ~1.5 s of turn: still running after the poll that saw it start and the 250 ms after it, on a loaded machine too.
    const model = writeScript(t.env.ws, 'slow.json', { responses: [{ chunks: ['a', 'b', 'c', 'd', 'e', 'f'], delayMs: 300 }] });
    const { url } = await t.startHttp(['--model', `scripted:${model}`, '--no-stdio']);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await api(url, 'POST', '/session', {})).body['sessionId'] as string);
      await sleep(3);
    }
    const page = async () => (await api(url, 'GET', '/session')).body['sessions'] as (Listed & { status: string })[];
    expect((await page()).map((x) => x.sessionId)).toEqual([...ids].reverse());
    expect((await api(url, 'POST', `/session/${ids[0]}/approval`, { preset: 'suggest' })).status).toBe(200);
    let list = await page();
    expect(outOfOrder(list)).toBe(-1);
    expect(list[0]!.sessionId).toBe(ids[0]);
    expect((await api(url, 'POST', `/session/${ids[1]}/message?wait=false`, { text: 'go' })).status).toBe(202);
    await until('the turn to stream', async () => (await page()).find((x) => x.sessionId === ids[1])?.status === 'running');
    await sleep(250);
    list = await page();
    expect(outOfOrder(list)).toBe(-1);
    expect(list[0]).toMatchObject({ sessionId: ids[1], status: 'running' });
    // Paged one at a time, the same order.
    expect((await walkHttp(url, 1)).list.map((x) => x.sessionId)).toEqual(list.map((x) => x.sessionId));
  });
});

/** `chimera ferret serve --http --no-stdio` under `ulimit -n N` (as scripts/bench/sessions.mjs starts it). */
async function underUlimit(nofile: number, home: string, ws: string): Promise<{ child: ChildProcessWithoutNullStreams; log: StderrLog; url: string }> {
  const argv = [CHIMERA, 'ferret', 'serve', '--http', '--port', '0', '--no-stdio', '--cwd', ws];
  const child = track<ChildProcessWithoutNullStreams>(
    spawn('bash', ['-c', `ulimit -n ${nofile} && exec "$0" "$@"`, process.execPath, ...argv], {
      env: { ...process.env, CHIMERA_HOME: home, FERRET_LOG_LEVEL: 'info' },
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  const log = new StderrLog(child.stderr);
  try {
    return { child, log, url: await listeningUrl(log) };
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
}

async function pool(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    for (let i = next++; i < n; i = next++) await work(i);
  }));
}

describe('many sessions: a small descriptor limit, a crash, and cursor paging on every surface', () => {
  const t = ferretPerTest();

  it('640 sessions under ulimit -n 256: no errors, open files < 256, early ones still answer; after a SIGKILL a fresh server pages every one exactly once, newest first, on HTTP, ACP v1 and the ferret dialect', { timeout: 60_000 }, async () => {
    const N = 640;
    const model = writeScript(t.env.ws, 'ok.json', { responses: [{ chunks: ['ok'] }, { chunks: ['ok again'] }] });
    const s = await underUlimit(256, t.env.home, t.env.ws);
    t.adopt({ close: () => stopChild(s.child, 'SIGKILL') });
    const pid = s.child.pid!;
    const errors: string[] = [];
    const bad = (what: string) => void (errors.length < 5 && errors.push(what));
    let maxFds = 0;
    const sampler = setInterval(() => {
      try {
        maxFds = Math.max(maxFds, readdirSync(`/proc/${pid}/fd`).length);
      } catch {
        /* exited: the checks below say why */
      }
    }, 20);
    const ids: string[] = new Array<string>(N);
    try {
      await pool(N, 24, async (i) => {
        const c = await api(s.url, 'POST', '/session', { model: `scripted:${model}` });
        if (c.status !== 201) return bad(`POST /session ${c.status} ${c.text.slice(0, 200)}`);
        ids[i] = c.body['sessionId'] as string;
        const m = await api(s.url, 'POST', `/session/${ids[i]}/message`, { text: `hi ${i}` });
        if (m.status !== 200 || m.body['stopReason'] !== 'end_turn') bad(`message ${m.status} ${m.text.slice(0, 200)}`);
      });
      // The first ones again: long since let go (past maxLiveSessions), they load back on demand.
      await pool(24, 8, async (i) => {
        const g = await api(s.url, 'GET', `/session/${ids[i]}`);
        if (g.status !== 200 || g.body['turns'] !== 1) return bad(`GET /session/:id ${g.status} ${g.text.slice(0, 200)}`);
        const m = await api(s.url, 'POST', `/session/${ids[i]}/message`, { text: 'again' });
        if (m.status !== 200 || m.body['message']?.['text'] !== 'ok again') bad(`message again ${m.status} ${m.text.slice(0, 200)}`);
      });
    } finally {
      clearInterval(sampler);
    }
    expect(errors).toEqual([]);
    expect(maxFds).toBeGreaterThan(0);
    expect(maxFds).toBeLessThan(256);
    expect(s.log.text).not.toMatch(/EMFILE|"level":50|"level":60/);

    // A crash right after the last answer: nothing is flushed on the way out.
    await stopChild(s.child, 'SIGKILL');

    // A fresh server on the same state: ACP v1 on stdio plus HTTP; and a ferret-dialect process.
    const v1 = t.adopt(new V1Client(['--cwd', t.env.ws, '--http', '--port', '0'], { CHIMERA_HOME: t.env.home, ...INFO }));
    const url = await v1.httpUrl();
    await v1.initialize();
    const fd = t.start([]);
    await fd.call('initialize', {});

    const http = await walkHttp(url, 37);
    expect(http.pages).toBe(Math.ceil(N / 37));
    expectEveryOnce(http.list, ids);
    expect(outOfOrder(http.list)).toBe(-1);
    // Sessions whose updatedAt ties (answered in the same millisecond) are paged like the rest.
    expect(http.list.some((x, i) => i > 0 && x.updatedAt === http.list[i - 1]!.updatedAt)).toBe(true);
    const order = http.list.map((x) => x.sessionId);
    expect((await walkHttp(url, 1000)).list.map((x) => x.sessionId)).toEqual(order);

    const viaV1 = await walkV1(v1);
    expect(viaV1.pages).toBeGreaterThan(1);
    expect(viaV1.list.map((x) => x.sessionId)).toEqual(order);
    expect(viaV1.list.map((x) => x.updatedAt)).toEqual(http.list.map((x) => x.updatedAt));

    const viaFerret = await walkFerret(fd, 100);
    expect(viaFerret.pages).toBe(Math.ceil(N / 100));
    expect(viaFerret.list.map((x) => x.sessionId)).toEqual(order);

    // A bad cursor: a clear error naming the field, and the server goes on.
    for (const cursor of ['not-a-cursor', Buffer.from('[1,2]').toString('base64url')]) {
      const h = await api(url, 'GET', `/session?cursor=${encodeURIComponent(cursor)}`);
      expect(h.status).toBe(400);
      expect(h.body['error']).toMatchObject({ code: 'invalid_params', message: expect.stringContaining('cursor') });
      await expect(v1.agent.request('session/list', { cursor })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('cursor') });
      const f = await fd.request('session/list', { cursor });
      expect(f['error']).toMatchObject({ code: -32602, message: expect.stringContaining('cursor'), data: { field: 'cursor' } });
    }
    const empty = await api(url, 'GET', '/session?cursor=');
    expect(empty.status).toBe(400);
    expect(empty.body['error']['message']).toContain('cursor');
    expect((await api(url, 'GET', '/session?limit=5')).body['sessions']).toHaveLength(5);
    expect((await v1.agent.request('session/list', {})).sessions.length).toBeGreaterThan(0);
    expect((await fd.call('session/list', { limit: 5 }))['sessions']).toHaveLength(5);
    expect(v1.schemaErrors()).toEqual([]);
  });
});
