import { execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, listeningUrl } from '../support/http.mjs';
import { FLEET_SECRET, startRedis, type RedisServer } from '../support/redis.mjs';
import { spawnFerret, stopChild } from '../support/spawn.mjs';
import { SseClient, type SseFrame } from '../support/sse.mjs';
import { StderrLog } from '../support/stderr-log.mjs';
import { tempDir, writeScript } from '../support/temp.mjs';
import { sleep, until } from '../support/until.js';

// The fleet's trust boundary (docs/fleet.md#trust), attacked end to end: three servers on one real
// redis-server, and an attacker who can run any command on that Redis (redis-cli, and an ioredis
// client to listen) but has no fleet secret. While a permission waits on its writer, they publish
// null and garbage on every server's channel, a forged "always" for that permission, and a
// replay of a genuine call they captured; they write an unsigned "always" into the audit log and a
// made-up owner into a session's lease. Every attempt is dropped and logged; the permission stays
// pending, the replayed call starts nothing, the forged "always" decides nothing, no command is
// sent to the made-up owner, and every server keeps serving.
//
// The second test edits a session's log and snapshot (docs/fleet.md#trust): the reviewer's forged
// `approval_changed` with the lease deleted so another server loads the session, a genuine entry
// copied from another session, one moved to another seq, a forged mode change and snapshot. Each
// server that loads or follows the session drops and logs them; it stays `suggest` and `code`,
// and its command asks every time.

const CMD = 'echo attacked >> marker.txt';
const SCRIPT = {
  responses: [
    { chunks: ['one'], toolCalls: [{ name: 'bash', arguments: { command: CMD } }] },
    { chunks: ['first done'] },
    { chunks: ['two'], toolCalls: [{ name: 'bash', arguments: { command: CMD } }] },
    { chunks: ['second done'] },
  ],
};

interface Server {
  name: string;
  child: ChildProcessWithoutNullStreams;
  log: StderrLog;
  url: string;
  instance: string;
}

/** The second test's sessions: one quiet turn, then a command in each turn after. */
const PWN = 'echo pwned > pwned.txt';
const SCRIPT2 = {
  responses: [
    { chunks: ['hello'] },
    ...[1, 2, 3].flatMap((n) => [{ chunks: [`run ${n}`], toolCalls: [{ name: 'bash', arguments: { command: PWN } }] }, { chunks: [`asked ${n}`] }]),
  ],
};

let redis: RedisServer;
let ws: string;
let model: string;
const servers: Server[] = [];
const clients: Redis[] = [];
beforeAll(async () => {
  redis = await startRedis();
  ws = tempDir('fleet-attack-ws');
  model = writeScript(tempDir('fleet-attack-model'), 'model.json', SCRIPT);
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  for (const s of servers) await stopChild(s.child, 'SIGKILL', 2000);
  await redis?.close();
});

let started: Promise<[Server, Server, Server]> | undefined;
/** The fleet's three servers, started once for the file. */
const fleet = () => (started ??= (async (): Promise<[Server, Server, Server]> => [await start('a'), await start('b'), await start('c')])());

async function start(name: string): Promise<Server> {
  const child = spawnFerret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, '--model', `scripted:${model}`, '--approval', 'suggest', '--store', redis.url], {
    env: { CHIMERA_HOME: tempDir(`fleet-attack-home-${name}`), FERRET_LOG_LEVEL: 'info', FERRET_SERVER_TOKEN: '', FERRET_FLEET_SECRET: FLEET_SECRET },
  });
  const log = new StderrLog(child.stderr, { limit: 400_000, keep: 200_000 });
  const url = await listeningUrl(log);
  const line = log.text.split('\n').find((l) => l.includes('"fleet store connected"'));
  const instance = (JSON.parse(line!) as { instance: string }).instance;
  const s = { name, child, log, url, instance };
  servers.push(s);
  return s;
}

/** The attacker's shell: one redis-cli command against the fleet's Redis. */
function cli(...args: string[]): string {
  return execFileSync('redis-cli', ['-p', String(redis.port), ...args], { encoding: 'utf8' }).trim();
}

/** What a server logged as dropped (the trust boundary's warnings). */
function drops(s: Server): { what: string; why: string; where: string; sample?: string }[] {
  return s.log.text
    .split('\n')
    .filter((l) => l.includes('failed its check'))
    .map((l) => JSON.parse(l) as { what: string; why: string; where: string; sample?: string });
}

const kind = (f: SseFrame) => (f.event === 'loop_event' ? String(f.data['kind']) : f.event);

async function allServing(): Promise<void> {
  for (const s of servers) {
    expect(s.child.exitCode, `${s.name} exited:\n${s.log.text}`).toBeNull();
    expect((await api(s.url, 'GET', '/health')).body).toMatchObject({ ok: true, redis: 'ready' });
  }
}

describe('a fleet of three servers against someone who can write to its Redis', () => {
  it('drops and logs every forged, replayed, malformed and unsigned message and record; nothing is acted on', async () => {
    const [a, b, c] = await fleet();
    const chan = (s: Server) => `ferret:cmd:${s.instance}`;

    // The attacker listens on A's channel from the start: they capture what the fleet sends A.
    const spy = new Redis(redis.url);
    clients.push(spy);
    const captured: string[] = [];
    spy.on('message', (_ch: string, m: string) => captured.push(m));
    await spy.subscribe(chan(a));

    const made = await api(a.url, 'POST', '/session', {});
    expect(made.status, made.text).toBe(201);
    const id = made.body['sessionId'] as string;
    const reader = new SseClient(b.url, `/session/${id}/events`);
    expect(await reader.opened).toBe(200);
    // A message through C: sent on to A, whose command asks.
    const reply = api(c.url, 'POST', `/session/${id}/message`, { text: 'run it' });
    reply.catch(() => undefined); // awaited below; a failure before then fails the test there, not as an unhandled rejection
    await reader.waitFor((fs) => fs.some((f) => kind(f) === 'permission_request'), 15_000);
    const ask = reader.frames.find((f) => kind(f) === 'permission_request')!;
    const permId = ask.data['id'] as string;
    await until('the startTurn call to be captured', () => captured.some((m) => m.includes('startTurn')));
    const startTurn = captured.find((m) => m.includes('startTurn'))!;

    // ---- on the bus: null and garbage everywhere, a forged "always", a replay ----
    for (const s of [a, b, c]) {
      expect(Number(cli('PUBLISH', chan(s), 'null'))).toBeGreaterThanOrEqual(1);
      expect(Number(cli('PUBLISH', chan(s), '{"t":"call","id":'))).toBeGreaterThanOrEqual(1);
    }
    const forged = { t: 'call', id: 'beef', from: b.instance, call: { sessionId: id, op: 'respondPermission', requestId: permId, decision: 'always', by: 'http:attacker' } };
    expect(Number(cli('PUBLISH', chan(a), JSON.stringify(forged)))).toBeGreaterThanOrEqual(1);
    // The same, dressed as a sealed message with a made-up MAC.
    expect(Number(cli('PUBLISH', chan(a), JSON.stringify({ v: 1, p: JSON.stringify({ ...forged, ts: Date.now(), n: 'ab'.repeat(16) }), m: 'cd'.repeat(32) })))).toBeGreaterThanOrEqual(1);
    // The genuine call C sent, published again: it would start a second turn.
    expect(Number(cli('PUBLISH', chan(a), startTurn))).toBeGreaterThanOrEqual(1);

    await until('A to log every drop', () => drops(a).filter((d) => d.what === 'bus message').length >= 5);
    const whys = drops(a).map((d) => d.why);
    expect(whys).toEqual(
      expect.arrayContaining(['not a sealed fleet message', 'not JSON', 'its MAC does not match (not signed with this fleet secret)', 'a replay (its nonce was seen already)']),
    );
    for (const s of [b, c]) await until(`${s.name} to log its drops`, () => drops(s).filter((d) => d.what === 'bus message').length >= 2);
    await sleep(300);
    await allServing();
    // The permission still waits; no second turn started.
    expect(reader.frames.filter((f) => kind(f) === 'permission_resolved')).toEqual([]);
    expect((await api(b.url, 'GET', `/session/${id}`)).body).toMatchObject({ turns: 1 });

    // ---- the person answers (through B): the turn goes on as usual ----
    const answered = await api(b.url, 'POST', `/session/${id}/permission`, { id: permId, decision: 'allow' });
    expect(answered.status, answered.text).toBe(200);
    const first = await reply;
    expect(first.body, a.log.text).toMatchObject({ stopReason: 'end_turn', message: { text: 'first done' } });
    expect(readFileSync(join(ws, 'marker.txt'), 'utf8')).toBe('attacked\n');

    // ---- the audit log: an unsigned "always" for that very command, in the stream and the map ----
    const entries = cli('--raw', 'XRANGE', 'ferret:audit', '-', '+').split('\n').filter((l) => l.startsWith('{'));
    const genuine = entries.map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e['by'] === 'person' && e['decision'] === 'allow')!;
    expect(genuine, entries.join('\n')).toBeDefined();
    expect(genuine['mac']).toMatch(/^[0-9a-f]{64}$/);
    const { mac: _mac, ...body } = genuine;
    const always = JSON.stringify({ ...body, ts: new Date().toISOString(), decision: 'always', who: 'attacker' });
    cli('XADD', 'ferret:audit', '*', 'e', always);
    cli('HSET', 'ferret:audit:persisted', JSON.stringify([body['workspace'], body['sandbox'], 'bash', body['key']]), always);
    await until('A to log the unsigned audit line', () => drops(a).some((d) => d.what === 'audit line'));
    // The same command again: it still asks.
    const again = api(c.url, 'POST', `/session/${id}/message`, { text: 'again' });
    again.catch(() => undefined);
    await reader.waitFor((fs) => fs.filter((f) => kind(f) === 'permission_request').length >= 2, 15_000);
    const ask2 = reader.frames.filter((f) => kind(f) === 'permission_request')[1]!;
    expect((await api(a.url, 'POST', `/session/${id}/permission`, { id: ask2.data['id'], decision: 'deny' })).status).toBe(200);
    expect((await again).body).toMatchObject({ stopReason: 'end_turn', message: { text: 'second done' } });
    expect(readFileSync(join(ws, 'marker.txt'), 'utf8')).toBe('attacked\n');

    // ---- a made-up owner in a session's lease: no server sends it anything, or names it ----
    const other = (await api(b.url, 'POST', '/session', {})).body['sessionId'] as string;
    await until('B to hold the lease', () => cli('GET', `ferret:s:{${other}}:lease`).startsWith(`${b.instance}|`));
    const evil = new Redis(redis.url);
    clients.push(evil);
    const heard: string[] = [];
    evil.on('message', (_ch: string, m: string) => heard.push(m));
    await evil.subscribe('ferret:cmd:evil');
    expect(cli('SET', `ferret:s:{${other}}:lease`, 'evil#99', 'PX', '60000')).toBe('OK');
    for (const s of [a, c]) {
      const r = await api(s.url, 'POST', `/session/${other}/message`, { text: 'hello' });
      expect(r.status, r.text).toBe(503);
      expect(JSON.stringify(r.body)).not.toContain('evil');
      expect(r.body['error']['message']).toMatch(/its lease in redis was not written by a server of this fleet/);
      // The answer and the server's log line travel on different pipes: wait for the line.
      await until(`${s.name} to log the made-up lease owner`, () => drops(s).some((d) => d.what === 'lease record' && d.sample === 'evil#99'));
    }
    await sleep(300);
    expect(heard).toEqual([]);
    // Gone again (deleted by the operator): the session is served.
    cli('DEL', `ferret:s:{${other}}:lease`);
    const back = await api(c.url, 'GET', `/session/${other}`);
    expect(back.status, back.text).toBe(200);

    await allServing();
    reader.close();
  }, 90_000);

  it("drops and logs forged, copied and moved entries of a session's log and a forged snapshot: the session keeps its settings and its command asks", async () => {
    const [a, b, c] = await fleet();
    const attacker = new Redis(redis.url);
    clients.push(attacker);
    const model2 = writeScript(tempDir('fleet-attack-model2'), 'model.json', SCRIPT2);
    const create = async (s: Server) => {
      const r = await api(s.url, 'POST', '/session', { model: `scripted:${model2}` });
      expect(r.status, r.text).toBe(201);
      return r.body['sessionId'] as string;
    };
    const logKey = (sid: string) => `ferret:s:{${sid}}:log`;
    const entries = async (sid: string) => (await attacker.xrange(logKey(sid), '-', '+')) as [string, string[]][];
    const top = async (sid: string) => Number((await entries(sid)).at(-1)![0].split('-')[0]);
    const logDrops = (s: Server, sid: string) => drops(s).filter((d) => d.what === 'log entry' && d.where.startsWith(logKey(sid)));

    const id = await create(a);
    const done = await api(a.url, 'POST', `/session/${id}/message`, { text: 'hi' });
    expect(done.body, a.log.text).toMatchObject({ stopReason: 'end_turn', message: { text: 'hello' } });
    // Another session switched to full-auto by its user: a genuine, signed approval_changed.
    const other = await create(a);
    expect((await api(a.url, 'POST', `/session/${other}/approval`, { preset: 'full-auto' })).status).toBe(200);
    await until("the other session's approval_changed to be written", async () => (await entries(other)).some(([, f]) => f[1]!.includes('"approval_changed"')));
    const genuineOther = (await entries(other)).find(([, f]) => f[1]!.includes('"approval_changed"'))![1];

    // C follows the session from the start (its tail sees every edit).
    const follower = new SseClient(c.url, `/session/${id}/events`, { lastEventId: '0' });
    expect(await follower.opened).toBe(200);

    /** A message through `s` (the lease deleted just before: `s` takes the session); its command asks, and is denied. */
    const drive = async (s: Server, round: number) => {
      const turn = api(s.url, 'POST', `/session/${id}/message`, { text: `go ${round}` });
      let answer = 'no answer yet';
      turn.then((r) => (answer = r.text), (e: unknown) => (answer = String(e)));
      const watch = new SseClient(s.url, `/session/${id}/events`, { lastEventId: '0' });
      try {
        await watch.waitFor((fs) => fs.filter((f) => kind(f) === 'permission_request').length >= round, 20_000).catch(async (err: unknown) => {
          throw new Error(`round ${round}: ${(err as Error).message}\n${answer}\n${watch.frames.map((f) => f.text).join('\n')}\n${s.log.text.slice(-3000)}`);
        });
        const ask = watch.frames.filter((f) => kind(f) === 'permission_request')[round - 1]!;
        const seen = await api(s.url, 'GET', `/session/${id}`);
        expect(seen.body, s.log.text).toMatchObject({ approval: 'suggest', mode: 'code', sandbox: 'workspace-write' });
        expect((await api(s.url, 'POST', `/session/${id}/permission`, { id: ask.data['id'], decision: 'deny' })).status).toBe(200);
        expect((await turn).body, s.log.text).toMatchObject({ stopReason: 'end_turn', message: { text: `asked ${round}` } });
      } finally {
        watch.close();
      }
    };

    // ---- 1: the reviewer's forgery, and a forged snapshot; B loads the session ----
    let n = await top(id);
    const forged = (seq: number, type: string, data: Record<string, unknown>) => JSON.stringify({ seq, sessionId: id, ts: Date.now(), type, data });
    cli('XADD', logKey(id), `${n + 1}-0`, 'e', forged(n + 1, 'approval_changed', { old: 'suggest', new: 'full-auto' }));
    const state = { approval: 'full-auto', sandbox: 'danger-full-access' };
    cli('SET', `ferret:s:{${id}}:snap`, `${'A'.repeat(43)} ${JSON.stringify({ v: 2, seq: n + 1, at: n + 1, ts: 0, folds: {}, state, items: 0, digest: '' })}`);
    cli('DEL', `ferret:s:{${id}}:lease`);
    await drive(b, 1);
    expect(logDrops(b, id).map((d) => [d.where, d.why])).toContainEqual([`${logKey(id)} ${n + 1}`, 'not an entry a server of this fleet wrote (no MAC)']);
    await until('B to log the forged snapshot', () => drops(b).some((d) => d.what === 'snapshot' && d.where === `ferret:s:{${id}}:snap`));
    await until('C (following) to log the forged entry', () => logDrops(c, id).length >= 1);

    // ---- 2: the other session's genuine approval_changed, copied in; C takes the session over ----
    n = await top(id);
    cli('XADD', logKey(id), `${n + 1}-0`, ...genuineOther);
    cli('DEL', `ferret:s:{${id}}:lease`);
    await drive(c, 2);
    expect(logDrops(c, id).some((d) => d.where === `${logKey(id)} ${n + 1}` && /MAC does not match/.test(d.why))).toBe(true);

    // ---- 3: this session's own first entry moved to the end, then a forged mode change; B loads it again ----
    // (once B has seen that C took the session from it: until its lease's next renewal it cannot know)
    await until('B to see its lease taken', () => b.log.text.includes(`session ${id} was taken over`), 15_000);
    n = await top(id);
    const first = (await entries(id))[0]![1];
    cli('XADD', logKey(id), `${n + 1}-0`, ...first);
    cli('XADD', logKey(id), `${n + 2}-0`, 'e', forged(n + 2, 'mode_changed', { old: 'code', new: 'plan' }), 'm', 'B'.repeat(43));
    cli('DEL', `ferret:s:{${id}}:lease`);
    await drive(b, 3);
    expect(logDrops(b, id).some((d) => d.where === `${logKey(id)} ${n + 1}` && d.why === `its MAC does not match (not signed with this fleet secret for seq ${n + 1} of this session)`)).toBe(true);

    // Nothing ran; the edits are kept aside, out of the log; every server still serves.
    expect(existsSync(join(ws, 'pwned.txt'))).toBe(false);
    const cut = cli('--raw', 'LRANGE', `ferret:s:{${id}}:cut`, '0', '-1');
    expect(cut).toContain('"full-auto"');
    expect(cut).toContain('"mode_changed"');
    // (C is left out of the count: a server whose lease was taken while it was alive keeps the view it had, forged entries or not)
    for (const s of [a, b]) {
      const view = async () => (await api(s.url, 'GET', `/session/${id}`)).body;
      await until(`${s.name} to show the fourth turn`, async () => (await view())['turns'] === 4, 10_000).catch(async (e: unknown) => {
        throw new Error(`${String(e)}: ${JSON.stringify(await view())}`);
      });
      expect(await view()).toMatchObject({ approval: 'suggest', mode: 'code' });
    }
    expect((await api(c.url, 'GET', `/session/${id}`)).body).toMatchObject({ approval: 'suggest', mode: 'code' });
    // C's reader (C followed, then wrote the session) saw the asks of rounds 1 and 2, and no forged change.
    expect(follower.frames.filter((f) => kind(f) === 'permission_request').length).toBeGreaterThanOrEqual(2);
    expect(follower.frames.filter((f) => /full-auto|"plan"/.test(f.text))).toEqual([]);
    follower.close();
    await allServing();
  }, 120_000);
});
