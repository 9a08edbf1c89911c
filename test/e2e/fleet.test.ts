import { execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V1Client } from '../support/acp-v1-client.js';
import { api, listeningUrl, type Json } from '../support/http.mjs';
import { FLEET_SECRET, startRedis, type RedisServer } from '../support/redis.mjs';
import { spawnFerret, stopChild } from '../support/spawn.mjs';
import { SseClient, type SseFrame } from '../support/sse.mjs';
import { StderrLog } from '../support/stderr-log.mjs';
import { tempDir, writeScript } from '../support/temp.mjs';
import { sleep, until } from '../support/until.js';

// A fleet (docs/fleet.md): a real redis-server and three ferret servers on loopback, each with
// its own CHIMERA_HOME and the one shared workspace. A session made on A is streamed from B,
// driven through C and answered through B (both sent on to A, its writer); A is killed -9 in the
// middle of a tool call; the next message through C takes the session over once A's lease runs
// out, ending A's turn as interrupted; B's reader, resumed with Last-Event-ID, has every frame
// exactly once; every server lists every session of the fleet.

const LEASE_MS = 1500;
/** A command that marks its processes, to find (and clean up) what a killed server left running. */
const SLOW = 'echo started > out.txt && sleep 29.7';
const SCRIPT = {
  responses: [
    { chunks: ['running ', 'it'], toolCalls: [{ name: 'bash', arguments: { command: SLOW } }] },
    { chunks: ['picked ', 'up'] },
    { chunks: ['on B'] },
  ],
};

interface Server {
  name: string;
  child: ChildProcessWithoutNullStreams;
  log: StderrLog;
  url: string;
}

let redis: RedisServer;
let ws: string;
let model: string;
const servers: Server[] = [];
beforeAll(async () => {
  redis = await startRedis();
  ws = tempDir('fleet3-ws');
  model = writeScript(tempDir('fleet3-model'), 'model.json', SCRIPT);
});
afterAll(async () => {
  for (const s of servers) await stopChild(s.child, 'SIGKILL', 2000);
  killSlow();
  await redis?.close();
});

function killSlow(): void {
  try {
    execFileSync('pkill', ['-f', 'sleep 29.7']);
  } catch {
    /* none left */
  }
}

async function start(name: string): Promise<Server> {
  const child = spawnFerret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, '--model', `scripted:${model}`, '--approval', 'suggest', '--store', redis.url], {
    env: { CHIMERA_HOME: tempDir(`fleet3-home-${name}`), FERRET_LOG_LEVEL: 'info', FERRET_SERVER_TOKEN: '', FERRET_FLEET_SECRET: FLEET_SECRET, FERRET_LEASE_TTL_MS: String(LEASE_MS) },
  });
  const log = new StderrLog(child.stderr, { limit: 400_000, keep: 200_000 });
  const s = { name, child, log, url: await listeningUrl(log) };
  servers.push(s);
  return s;
}


const key = (f: SseFrame) => `${f.id} ${f.event} ${f.text}`;
const kind = (f: SseFrame) => (f.event === 'loop_event' ? String(f.data['kind']) : f.event);
const ids = (r: { body: Json }) => ((r.body['sessions'] as Json[]) ?? []).map((s) => s['sessionId'] as string).sort();

describe('a fleet of three servers on one Redis', () => {
  it('any server answers for any session; a dead writer is taken over; an SSE reader sees every frame once', async () => {
    const [a, b, c] = [await start('a'), await start('b'), await start('c')];

    // ---- made on A, streamed from B ----
    const made = await api(a.url, 'POST', '/session', {});
    expect(made.status, made.text).toBe(201);
    const id = made.body['sessionId'] as string;
    const reader = new SseClient(b.url, `/session/${id}/events`);
    expect(await reader.opened).toBe(200);

    // ---- the message through C: sent on to A, which runs it; the question answered through B ----
    const reply = api(c.url, 'POST', `/session/${id}/message`, { text: 'run the slow one' });
    await reader.waitFor((fs) => fs.some((f) => kind(f) === 'permission_request'), 15_000);
    const ask = reader.frames.find((f) => kind(f) === 'permission_request')!;
    const answered = await api(b.url, 'POST', `/session/${id}/permission`, { id: ask.data['id'], decision: 'allow' });
    expect(answered.status, answered.text).toBe(200);
    // The first answer wins fleet-wide: a second one, through C, is refused by the writer.
    const late = await api(c.url, 'POST', `/session/${id}/permission`, { id: ask.data['id'], decision: 'deny' });
    expect(late.status, late.text).toBe(409);
    expect(late.body['error']).toMatchObject({ code: 'already_decided' });
    // The command runs on A: kill A (-9) in the middle of it.
    await until('the command to run', () => running('sleep 29.7'));
    const beforeKill = reader.frames.length;
    a.child.kill('SIGKILL');
    killSlow(); // what A ran dies with it (a real machine going away takes its processes too)
    // The message in flight through C gets a clear answer: its server is gone.
    const lost = await reply;
    expect(lost.status, lost.text).toBe(503);
    expect(lost.body['error']).toMatchObject({ code: 'session_busy' });

    // ---- the next message through C: refused while A's lease lives, then C takes the session over ----
    const t0 = Date.now();
    const next = await until(
      'a server to take the session over',
      async () => {
        const r = await api(c.url, 'POST', `/session/${id}/message`, { text: 'go on' });
        if (r.status === 503) return undefined;
        return r;
      },
      LEASE_MS + 10_000,
    );
    expect(Date.now() - t0).toBeLessThan(LEASE_MS + 8000);
    expect(next.status, next.text).toBe(200);
    expect(next.body, c.log.text).toMatchObject({ stopReason: 'end_turn', message: { text: 'picked up' } });
    expect(c.log.text).toMatch(/taking the session over/);

    // A's turn ended in the log as interrupted: its tool call failed, the turn ended with an error.
    const state = (await api(b.url, 'GET', `/session/${id}`)).body;
    expect(state).toMatchObject({ turns: 2 });
    await reader.waitFor((fs) => fs.filter((f) => f.event === 'result').length >= 2, 10_000);
    const afterKill = reader.frames.slice(beforeKill);
    const failed = afterKill.find((f) => kind(f) === 'tool_call_end');
    expect(failed?.data['result'], JSON.stringify(afterKill.map(key))).toMatchObject({ status: 'failed', output: expect.stringMatching(/^interrupted: ferret instance .* stopped before the turn ended/) });
    const firstEnd = afterKill.find((f) => kind(f) === 'turn_end')!;
    expect(firstEnd.data).toMatchObject({ stop_reason: 'error' });
    expect(reader.frames.find((f) => f.event === 'result')!.data).toMatchObject({ stopReason: 'error' });

    // ---- B's reader, resumed with Last-Event-ID across all of it: every frame exactly once ----
    const cut = reader.frames[Math.floor(beforeKill / 2)]!;
    reader.close();
    const resumed = new SseClient(b.url, `/session/${id}/events`, { lastEventId: cut.id });
    expect(await resumed.opened).toBe(200);
    await resumed.waitFor((fs) => fs.filter((f) => f.event === 'result').length >= 2, 10_000);
    // The whole session, replayed on C (its writer now).
    const all = new SseClient(c.url, `/session/${id}/events`, { lastEventId: '0' });
    await all.waitFor((fs) => fs.filter((f) => f.event === 'result').length >= 2, 10_000);
    await sleep(200); // nothing more may arrive
    resumed.close();
    all.close();
    const at = all.frames.findIndex((f) => f.id === cut.id);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(resumed.frames.map(key)).toEqual(all.frames.slice(at + 1).map(key));
    expect(reader.frames.map(key)).toEqual(all.frames.slice(0, reader.frames.length).map(key));
    expect(new Set(all.frames.map((f) => f.id)).size).toBe(all.frames.length);

    // ---- B drives it too now (sent on to C); every server lists every session of the fleet ----
    const onB = await api(b.url, 'POST', `/session/${id}/message`, { text: 'and from B' });
    expect(onB.body, b.log.text).toMatchObject({ stopReason: 'end_turn', message: { text: 'on B' } });
    const hello = writeScript(tempDir('fleet3-hi'), 'hi.json', { responses: [{ chunks: ['hi'] }] });
    const other = (await api(b.url, 'POST', '/session', { model: `scripted:${hello}` })).body['sessionId'] as string;
    for (const s of [b, c]) {
      await until(`${s.name} to list both sessions`, async () => JSON.stringify(ids(await api(s.url, 'GET', '/session'))) === JSON.stringify([id, other].sort()));
    }
    // A clean stop of a server that follows a session and writes another: exit 0, its lease given
    // back, so the next command elsewhere takes that session at once (no 503 while a lease runs out).
    expect(await stopChild(b.child, 'SIGTERM', 8000), b.log.text).toBe(0);
    const moved = await api(c.url, 'POST', `/session/${other}/message`, { text: 'hello' });
    expect(moved.body, moved.text).toMatchObject({ stopReason: 'end_turn', message: { text: 'hi' } });
  }, 60_000);
});

describe('an editor (ACP v1 on stdio) on a server that only follows the session', () => {
  it('drives a session another server writes: its prompt, permission and mode go to the writer, its updates come from the stream', async () => {
    const a = await start('ea');
    const script = writeScript(tempDir('fleet3-ed'), 'ed.json', {
      responses: [{ chunks: ['from ', 'the editor'], toolCalls: [{ name: 'bash', arguments: { command: 'echo d > from-editor.txt' } }] }, { chunks: ['done'] }],
    });
    const id = (await api(a.url, 'POST', '/session', { model: `scripted:${script}` })).body['sessionId'] as string;
    const d = new V1Client(['--cwd', ws, '--approval', 'suggest', '--store', redis.url], { CHIMERA_HOME: tempDir('fleet3-home-d'), FERRET_LOG_LEVEL: 'info', FERRET_FLEET_SECRET: FLEET_SECRET, FERRET_LEASE_TTL_MS: String(LEASE_MS) });
    servers.push({ name: 'd', child: d.child, log: d.log, url: '' });
    await d.initialize();
    await d.agent.request('session/load', { sessionId: id, cwd: ws, mcpServers: [] });
    d.permissionPolicy = () => 'allow_once';
    const r = await d.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'write it' }] });
    expect(r.stopReason, d.log.text).toBe('end_turn');
    // Asked on the editor, answered there, run by the writer (A).
    expect(d.permissions).toHaveLength(1);
    expect(readFileSync(join(ws, 'from-editor.txt'), 'utf8')).toBe('d\n');
    const said = d.of(id).filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''));
    expect(said.join('')).toBe('from the editordone');
    expect(d.schemaErrors()).toEqual([]);
    // The mode picker, through the follower, changes the session the writer keeps.
    await d.agent.request('session/set_mode', { sessionId: id, modeId: 'plan' });
    await until('the writer to show plan mode', async () => (await api(a.url, 'GET', `/session/${id}`)).body['mode'] === 'plan');
    expect(a.log.text).not.toMatch(/taking the session over/);
  }, 30_000);
});

describe('a fleet server without the session\'s workspace', () => {
  it('refuses to take the session over, naming the missing workspace; a server that has it can', async () => {
    const [a, b] = [await start('wa'), await start('wb')];
    const gone = tempDir('fleet3-gone');
    const hello = writeScript(tempDir('fleet3-hello'), 'hello.json', { responses: [{ chunks: ['hi'] }] });
    const made = await api(a.url, 'POST', '/session', { cwd: gone, model: `scripted:${hello}` });
    expect(made.status, made.text).toBe(201);
    const id = made.body['sessionId'] as string;
    // A stops cleanly (its lease given back) and the workspace is not there for B.
    expect(await stopChild(a.child, 'SIGTERM', 8000)).toBe(0);
    rmSync(gone, { recursive: true, force: true });
    const refused = await api(b.url, 'POST', `/session/${id}/message`, { text: 'hello' });
    expect(refused.status, refused.text).toBe(404);
    expect(refused.body['error']['message']).toContain(`its workspace ${gone} does not exist on ferret instance`);
    // The workspace back (the shared volume mounted again): B takes the session and runs the turn.
    mkdirSync(gone, { recursive: true });
    const ok = await api(b.url, 'POST', `/session/${id}/message`, { text: 'hello' });
    expect(ok.status, ok.text).toBe(200);
  }, 30_000);
});

function running(pattern: string): boolean {
  try {
    execFileSync('pgrep', ['-f', pattern]);
    return true;
  } catch {
    return false;
  }
}
