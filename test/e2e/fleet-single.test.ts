import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, listeningUrl, type Json } from '../support/http.mjs';
import { FLEET_SECRET, startRedis, type RedisServer } from '../support/redis.mjs';
import { spawnFerret, stopChild } from '../support/spawn.mjs';
import { SseClient, type SseFrame } from '../support/sse.mjs';
import { StderrLog } from '../support/stderr-log.mjs';
import { tempDir, writeScript } from '../support/temp.mjs';
import { sleep, until } from '../support/until.js';

// Fleet mode with one instance (docs/fleet.md): the built CLI with `--store redis://…` on a real
// redis-server. A session made on one server is listed, loaded, continued and streamed by a second
// server on the same Redis whose CHIMERA_HOME is empty (nothing comes from disk); Redis going away
// shows in /health and refuses turns with `storage`, and coming back needs nothing from anyone.

const SCRIPT = {
  responses: [
    { chunks: ['writing ', 'a.txt'], toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A\n' } }] },
    { chunks: ['first ', 'answer'] },
    { chunks: ['second ', 'answer'] },
    { chunks: ['third ', 'answer'] },
  ],
};

interface Server {
  child: ChildProcessWithoutNullStreams;
  log: StderrLog;
  url: string;
  home: string;
}

let redis: RedisServer;
let ws: string;
let model: string;
beforeAll(async () => {
  redis = await startRedis();
  ws = tempDir('fleet-ws');
  model = writeScript(tempDir('fleet-model'), 'model.json', SCRIPT);
});
afterAll(async () => {
  await redis?.close();
});

async function start(name: string): Promise<Server> {
  const home = tempDir(`fleet-home-${name}`);
  const child = spawnFerret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, '--model', `scripted:${model}`, '--approval', 'full-auto', '--store', redis.url], {
    env: { CHIMERA_HOME: home, FERRET_LOG_LEVEL: 'info', FERRET_SERVER_TOKEN: '', FERRET_FLEET_SECRET: FLEET_SECRET },
  });
  const log = new StderrLog(child.stderr, { limit: 200_000, keep: 100_000 });
  return { child, log, url: await listeningUrl(log), home };
}

async function stop(s: Server): Promise<void> {
  expect(await stopChild(s.child, 'SIGTERM', 8000), s.log.text).toBe(0);
}


const key = (f: SseFrame) => `${f.id} ${f.event} ${f.text}`;
const results = (n: number) => (fs: SseFrame[]) => fs.filter((f) => f.event === 'result').length >= n;

describe('one ferret server in fleet mode on Redis', () => {
  it('keeps sessions in Redis across servers, reports an outage and recovers by itself', async () => {
    // ---- server A: a session and a turn (with a file edit: IDE frames and their fold) ----
    const a = await start('a');
    expect((await api(a.url, 'GET', '/health')).body).toMatchObject({ ok: true, store: 'redis', redis: 'ready' });
    const made = await api(a.url, 'POST', '/session', {});
    expect(made.status).toBe(201);
    const id = made.body['sessionId'] as string;
    const t1 = await api(a.url, 'POST', `/session/${id}/message`, { text: 'write a.txt' });
    expect(t1.body, a.log.text).toMatchObject({ stopReason: 'end_turn', message: { text: 'first answer' } });
    expect(((await api(a.url, 'GET', '/session')).body['sessions'] as Json[]).map((s) => s['sessionId'])).toEqual([id]);
    const before = (await api(a.url, 'GET', `/session/${id}`)).body;
    expect(before).toMatchObject({ turns: 1 });
    await stop(a);
    // Nothing of the session on A's disk either: the log lives in Redis.
    expect(existsSync(join(a.home, 'eventlog', `ferret-${id}`))).toBe(false);

    // ---- server B: another CHIMERA_HOME, the same Redis ----
    const b = await start('b');
    try {
      const listed = (await api(b.url, 'GET', '/session')).body['sessions'] as Json[];
      expect(listed.map((s) => s['sessionId'])).toEqual([id]);
      expect(listed[0]).toMatchObject({ title: 'write a.txt', live: false });
      const detail = await api(b.url, 'GET', `/session/${id}`);
      expect(detail.status, detail.text).toBe(200);
      expect(detail.body).toMatchObject({ turns: 1, lastSeq: before['lastSeq'], cwd: ws, title: 'write a.txt' });
      expect((await api(b.url, 'GET', `/session/${id}/prompts`)).body['prompts']).toMatchObject([{ text: 'write a.txt', origin: 'http' }]);

      // A live reader resuming after the first turn's last event, then the second turn.
      const lastSeq = before['lastSeq'] as number;
      const live = new SseClient(b.url, `/session/${id}/events`, { lastEventId: String(lastSeq) });
      expect(await live.opened).toBe(200);
      const t2 = await api(b.url, 'POST', `/session/${id}/message`, { text: 'and again' });
      expect(t2.body, b.log.text).toMatchObject({ stopReason: 'end_turn', message: { text: 'second answer' } });
      await live.waitFor(results(1));
      // The whole session replayed from Redis: the live reader got exactly the frames after its Last-Event-ID.
      const all = new SseClient(b.url, `/session/${id}/events`, { lastEventId: '0' });
      await all.waitFor(results(2));
      all.close();
      const at = all.frames.findIndex((f) => f.id === String(lastSeq));
      expect(at).toBeGreaterThan(0);
      const after = all.frames.slice(at + 1);
      await sleep(100); // nothing more may arrive
      live.close();
      expect(live.frames.map(key)).toEqual(after.map(key));
      expect(live.frames.some((f) => f.event === 'loop_event' && f.data['kind'] === 'agent_message_chunk' && f.data['text'] === 'second ')).toBe(true);
      // The first turn's IDE frames came back from Redis too (the write_file's diff).
      expect(all.frames.some((f) => f.event === 'code/diff' && f.data['path'] === join(ws, 'a.txt'))).toBe(true);
      // The conversation went on: the second turn saw the first turn's history.
      expect((await api(b.url, 'GET', `/session/${id}`)).body).toMatchObject({ turns: 2 });
      expect(existsSync(join(b.home, 'eventlog', `ferret-${id}`))).toBe(false);

      // ---- Redis goes away: /health says so, a turn is refused with `storage` ----
      await redis.stop();
      const down = await until('/health to report redis down', async () => {
        const h = (await api(b.url, 'GET', '/health')).body;
        return h['redis'] === 'down' ? h : undefined;
      });
      expect(down).toMatchObject({ ok: true, store: 'redis', redis: 'down' });
      const refused = await api(b.url, 'POST', `/session/${id}/message`, { text: 'while redis is away' });
      expect(refused.status).toBe(500);
      expect(refused.body['error']).toMatchObject({ code: 'storage' });
      expect(refused.body['error']['message']).toMatch(/cannot start a turn: .*redis at redis:\/\/127\.0\.0\.1:\d+\/0 is unavailable.*reconnects by itself/);

      // ---- Redis is back: the server sees it by itself, and turns work again ----
      await redis.restart();
      await until('/health to report redis ready', async () => (await api(b.url, 'GET', '/health')).body['redis'] === 'ready');
      const t3 = await api(b.url, 'POST', `/session/${id}/message`, { text: 'once more' });
      expect(t3.body, b.log.text).toMatchObject({ stopReason: 'end_turn', message: { text: 'third answer' } });
      expect((await api(b.url, 'GET', `/session/${id}`)).body).toMatchObject({ turns: 3 });
    } finally {
      await stop(b);
    }
  }, 30_000);
});

describe('fleet mode start-up errors', () => {
  const run = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const child = spawnFerret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, '--model', `scripted:${model}`, ...args], { env: { CHIMERA_HOME: tempDir('fleet-bad'), FERRET_FLEET_SECRET: FLEET_SECRET, ...env } });
    const log = new StderrLog(child.stderr);
    const code = await stopChild(child, null, 15_000);
    return { code, text: log.text };
  };

  it('a bad URL names the flag, the variable or the config.json field; a Redis that does not answer names the URL', async () => {
    const flag = await run(['--store', 'http://127.0.0.1:6379/0']);
    expect(flag.code).toBe(2);
    expect(flag.text).toMatch(/--store: http:\/\/ is not a Redis URL \(expected redis:\/\/HOST:PORT\/DB\)/);
    const env = await run([], { FERRET_STORE: 'redis://127.0.0.1:6379/zero' });
    expect(env.code).toBe(2);
    expect(env.text).toMatch(/FERRET_STORE: the database in "redis:\/\/127\.0\.0\.1:6379\/zero" must be a number/);

    const home = tempDir('fleet-config');
    mkdirSync(join(home, 'ferret'), { recursive: true });
    writeScript(join(home, 'ferret'), 'config.json', { store: 'redis//nohost' });
    const cfg = spawnFerret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, '--model', `scripted:${model}`], { env: { CHIMERA_HOME: home } });
    const cfgLog = new StderrLog(cfg.stderr);
    expect(await stopChild(cfg, null, 15_000)).toBe(1);
    expect(cfgLog.text).toMatch(/config\.json: field store: not a URL/);

    // Nothing listens there: the connect timeout (5 s), then a clear error and a non-zero exit.
    const gone = await startRedis();
    const url = gone.url;
    await gone.close();
    const t0 = Date.now();
    const none = await run(['--store', url]);
    expect(none.code).toBe(1);
    expect(Date.now() - t0).toBeLessThan(12_000);
    expect(none.text).toContain(`starting the fleet store: redis at ${url} is unavailable`);
    expect(none.text).toMatch(/ECONNREFUSED/);
  }, 30_000);

  it('refuses fleet mode without the fleet secret, or with a short one, before it connects', async () => {
    const none = await run(['--store', redis.url], { FERRET_FLEET_SECRET: '' });
    expect(none.code).toBe(1);
    expect(none.text).toMatch(/fleet mode \(--store\) needs the secret every server of the fleet shares: set FERRET_FLEET_SECRET/);
    const short = await run(['--store', redis.url], { FERRET_FLEET_SECRET: 'too-short' });
    expect(short.code).toBe(1);
    expect(short.text).toMatch(/fleet secret: the fleet secret is 9 bytes; it must be 32 or more/);
    // config.json's fleet.secret is taken when the variable is not set.
    const home = tempDir('fleet-config-secret');
    mkdirSync(join(home, 'ferret'), { recursive: true });
    writeScript(join(home, 'ferret'), 'config.json', { fleet: { secret: FLEET_SECRET } });
    const cfg = spawnFerret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, '--model', `scripted:${model}`, '--store', redis.url], { env: { CHIMERA_HOME: home, FERRET_LOG_LEVEL: 'info', FERRET_SERVER_TOKEN: '', FERRET_FLEET_SECRET: '' } });
    const cfgLog = new StderrLog(cfg.stderr);
    try {
      await listeningUrl(cfgLog);
      expect(cfgLog.text).toContain('fleet store connected');
    } finally {
      await stopChild(cfg, 'SIGTERM', 8000);
    }
  }, 30_000);
});
