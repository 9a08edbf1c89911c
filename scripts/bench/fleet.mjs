// Fleet on Redis (docs/fleet.md): servers started with `--store redis://…` on one real
// redis-server (test/support/redis.mjs, appendonly, fsync every second), measured against the
// JSONL (file) store in the same run.
//
// 1. Streaming, the same scripted turns as streaming.mjs (a burst of 20,000 chunks; 2,000 chunks
//    1 ms apart), one SSE reader, the message sent over HTTP: on a file-store server (the floor),
//    on a Redis-store server with the reader on that server (the writer), and with the reader on
//    ANOTHER server of the same Redis (its frames come through Redis: the writer's stream, read
//    with XREAD by the other server). events/s = chunks / (POST message sent → last chunk at the
//    reader); latency = arrival − the event's `ts` (Date.now() at emit on the writer; read back
//    from events.jsonl, or from the Redis stream). "added" = the Redis figure − the file store's.
// 2. SSE resume from another instance: server A writes a session of ~100,000 events through real
//    turns (a scripted model of 10,000 chunks a turn, messages over HTTP; 20,000 in quick mode); a
//    fresh server B on the same Redis (the session not loaded there) serves GET /session/:id/events
//    with Last-Event-ID near the start (100) and near the end (last − 100): first frame, caught up
//    with the end, the longest GET /health answer on B meanwhile (lib.mjs healthProbe; floor:
//    gapFloor). The same requests on A (the writer, the session in memory). Floors: the same
//    session written on a JSONL-store server, resumed on it (for A) and on a fresh process on the
//    same files (for B). Every reader's frame ids are checked: none repeated or out of order, and
//    B's (and A's later readers') exactly the first A reader's.
// 3. Concurrency as concurrency.mjs (one `bash true` turn per session, bwrap, full-auto), N
//    sessions at once: on three Redis-store servers, session k made on server k mod 3 and its
//    message sent to server k+1 mod 3 (which sends it on to the writer over HTTP), against the
//    same N on one file-store server. errors = non-2xx, stop reason ≠ end_turn, or a tool call
//    that did not complete with exit 0 (each session's tool_call_end, read back from its log);
//    and the session's lease is checked to be still its maker's (the turn ran there: forwarded).
//    Every server runs with FERRET_MAX_LIVE_SESSIONS=10000: under the default cap (256) a maker
//    lets its idle sessions go and the server a message reaches runs the turn itself.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvents } from '../../test/support/eventlog.mjs';
import { api } from '../../test/support/http.mjs';
import { startRedis } from '../../test/support/redis.mjs';
import { SseClient } from '../../test/support/sse.mjs';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { chunkScript, eventTsBySeq, ferret, gapFloor, healthProbe, median, memOf, now, percentile, sleep, withTimeout } from './lib.mjs';

const BENCH = 'fleet (Redis)';
const k = (n) => (n >= 1000 ? `${n / 1000}k` : String(n));

// ---------- servers ----------
/** The JSON log line whose msg is `msg` (undefined until it is there). */
function logLine(text, msg) {
  for (const line of text.split('\n')) {
    if (!line.includes(`"msg":"${msg}"`)) continue;
    try {
      return JSON.parse(line);
    } catch {
      /* a line still being written */
    }
  }
  return undefined;
}

/** `chimera ferret serve --http --no-stdio`, on the file store or on `store` (a Redis URL): its URL and fleet instance id. */
async function server(ws, { store, extra = [], warm = false, home: given, env = {} } = {}) {
  const home = given ?? tempDir('bench-fleet-home');
  const drop = () => given === undefined && removeDir(home);
  const f = ferret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, ...(store ? ['--store', store] : []), ...extra], home, { FERRET_SERVER_TOKEN: '', FERRET_FLEET_SECRET: 'bench-fleet-secret-0123456789abcdef0123456789', ...env });
  try {
    const url = await f.listening(30_000);
    const instance = store ? (await f.log.waitFor((t) => logLine(t, 'fleet store connected'), 10_000, 'the "fleet store connected" log line')).instance : undefined;
    // Its background warm-up (tools, shell parser, bubblewrap probe) done, so it does not run inside a measurement.
    if (warm) await f.log.waitFor((t) => (t.includes('"msg":"warmed up"') ? true : undefined), 30_000, 'the "warmed up" log line');
    return {
      f, url, instance, home,
      close: async () => {
        await f.kill();
        drop();
      },
    };
  } catch (e) {
    await f.kill();
    drop();
    throw e;
  }
}

async function closeAll(servers) {
  for (const s of servers) await s?.close();
}

// ---------- reading the Redis store back (after the timing) ----------
async function redisClient(url) {
  const { Redis } = await import('ioredis');
  const c = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  await withTimeout(c.connect(), 10_000, 'bench redis client');
  return c;
}
/** src/store/redis/keys.ts, default prefix. */
const logKey = (id) => `ferret:s:{${id}}:log`;
const leaseKey = (id) => `ferret:s:{${id}}:lease`;
const seqOf = (entryId) => Number(entryId.split('-')[0]);

/** The highest seq Redis holds for a session. */
async function redisTop(c, id) {
  const r = await c.xrevrange(logKey(id), '+', '-', 'COUNT', 1);
  return r.length ? seqOf(r[0][0]) : 0;
}
/** Waits (bounded) until Redis holds the session up to `seq`: the writer sends once per tick. */
async function redisHolds(c, id, seq) {
  const end = Date.now() + 30_000;
  while ((await redisTop(c, id)) < seq) {
    if (Date.now() > end) throw new Error(`redis holds session ${id} up to ${await redisTop(c, id)}, not ${seq}, 30 s after the turn`);
    await sleep(20);
  }
}
/** Every event of a session, from its Redis stream (the same JSON envelope as events.jsonl). */
async function redisEvents(c, id) {
  return (await c.xrange(logKey(id), '-', '+')).map(([, fields]) => JSON.parse(fields[1]));
}

// ---------- 1. streaming ----------
function lat(arrivals, tsOf) {
  const xs = [];
  for (const [seq, t] of arrivals) xs.push(t - tsOf(seq));
  return { p50: percentile(xs, 50), p99: percentile(xs, 99) };
}

/** One turn of n chunks (delayMs apart) on a fresh server (or two); mode 'file' | 'redis' (reader on the writer) | 'other' (reader on another server). */
async function streamOnce(mode, n, delayMs, redisUrl, rc) {
  const ws = tempDir('bench-fleet-stream-ws');
  const servers = [];
  try {
    const store = mode === 'file' ? undefined : redisUrl;
    const a = await server(ws, { store, warm: true });
    servers.push(a);
    const b = mode === 'other' ? await server(ws, { store, warm: true }) : a;
    if (b !== a) servers.push(b);
    const model = 'scripted:' + writeScript(ws, 'model.json', { responses: chunkScript(n).responses.map((r) => ({ ...r, delayMs })) });
    const made = await api(a.url, 'POST', '/session', { model });
    if (made.status !== 201) throw new Error(`POST /session: ${made.status} ${made.text}`);
    const id = made.body.sessionId;
    const sse = new Map();
    const reader = new SseClient(b.url, `/session/${id}/events`, {
      keep: false,
      onFrame: (fr, t) => {
        if (fr.event === 'loop_event' && fr.data.kind === 'agent_message_chunk') sse.set(fr.data.seq, t);
      },
    });
    const status = await withTimeout(reader.opened, 30_000, 'SSE open');
    if (status !== 200) throw new Error(`GET /session/${id}/events on ${mode === 'other' ? 'the other server' : 'the writer'}: ${status}`);
    const t0 = now();
    const r = await withTimeout(api(a.url, 'POST', `/session/${id}/message`, { text: 'go' }), 120_000, 'streaming turn');
    if (r.status !== 200 || r.body.stopReason !== 'end_turn') throw new Error(`turn: ${r.status} ${r.text.slice(0, 300)}`);
    await reader.waitFor(() => sse.size >= n, 60_000);
    const end = now();
    reader.close();
    let ts;
    if (mode === 'file') ts = eventTsBySeq(a.home, id);
    else {
      await redisHolds(rc, id, Math.max(...sse.keys()));
      ts = new Map((await redisEvents(rc, id)).map((e) => [e.seq, e.ts]));
    }
    return { rate: n / ((end - t0) / 1000), lat: lat(sse, (s) => ts.get(s)) };
  } finally {
    await closeAll(servers);
    removeDir(ws);
  }
}

async function streaming(quick, rows) {
  const reps = quick ? 1 : 3;
  const redis = await startRedis();
  const rc = await redisClient(redis.url);
  try {
    const modes = [
      ['file', 'JSONL store, reader on the writer'],
      ['redis', 'Redis store, reader on the writer'],
      ['other', 'Redis store, reader on another server'],
    ];
    for (const [label, n, delayMs] of [['burst 20,000', 20_000, 0], ['paced 2,000 @1 ms', 2_000, 1]]) {
      const got = { file: [], redis: [], other: [] };
      for (let i = 0; i < reps; i++) for (const [mode] of modes) got[mode].push(await streamOnce(mode, n, delayMs, redis.url, rc));
      const m = (mode, get) => median(got[mode].map(get));
      for (const [mode, name] of modes) {
        const base = mode === 'file';
        const rate = m(mode, (x) => x.rate);
        const p50 = m(mode, (x) => x.lat.p50);
        const p99 = m(mode, (x) => x.lat.p99);
        const fr = m('file', (x) => x.rate);
        const f50 = m('file', (x) => x.lat.p50);
        const f99 = m('file', (x) => x.lat.p99);
        const vs = (v, f) => (base ? {} : { floor: f, ratio: v / Math.max(f, 0.5) });
        if (delayMs === 0) {
          rows.push({
            bench: BENCH, metric: `${label}, ${name}: SSE events/s`, value: rate, unit: 'ev/s', runs: reps,
            ...(base ? {} : { floor: fr, ratio: rate / fr, target: '≥ 0.5 × the JSONL store', met: rate >= 0.5 * fr }),
          });
        }
        const added = (v, f) => (base ? '' : ` (added = ${(v - f).toFixed(1)} ms)`);
        rows.push({ bench: BENCH, metric: `${label}, ${name}: latency p50 emit → arrival${added(p50, f50)}`, value: p50, unit: 'ms', runs: reps, ...vs(p50, f50) });
        rows.push({
          bench: BENCH, metric: `${label}, ${name}: latency p99 emit → arrival${added(p99, f99)}`, value: p99, unit: 'ms', runs: reps, ...vs(p99, f99),
          ...(base || delayMs === 0 ? {} : { target: 'added p99 < 5 ms', met: p99 - f99 < 5 }),
        });
      }
    }
  } finally {
    await rc.quit().catch(() => rc.disconnect());
    await redis.close();
  }
}

// ---------- 2. SSE resume from another instance ----------
/** `seq` or `seq.k` → comparable position. */
const pos = (id) => {
  const [a, b] = id.split('.');
  return { seq: Number(a), k: b === undefined ? 0 : Number(b) };
};
const after_ = (p, q) => p.seq > q.seq || (p.seq === q.seq && p.k > q.k);

/**
 * One SSE reader with Last-Event-ID = after: first frame, caught up with lastSeq, the longest
 * /health answer meanwhile (and 1 s after), every frame id it got, and how many were not after
 * the one before (repeated or out of order).
 */
async function resumeOnce(s, id, after, lastSeq) {
  const probe = await healthProbe(s.url);
  try {
    probe.start();
    let firstFrame;
    let last = 0;
    let prev = { seq: after, k: Number.MAX_SAFE_INTEGER };
    let disorder = 0;
    const ids = [];
    const t0 = now();
    const c = new SseClient(s.url, `/session/${id}/events`, {
      keep: false,
      lastEventId: String(after),
      onFrame: (f) => {
        firstFrame ??= now() - t0;
        ids.push(f.id);
        const p = pos(f.id);
        if (!after_(p, prev)) disorder++;
        prev = p;
        last = p.seq;
      },
    });
    const status = await withTimeout(c.opened, 60_000, 'SSE open');
    if (status !== 200) throw new Error(`GET /session/${id}/events: ${status}`);
    await c.waitFor(() => firstFrame !== undefined, 60_000);
    await c.waitFor(() => last >= lastSeq, 300_000);
    const caughtUp = now() - t0;
    await sleep(1000);
    const gap = await probe.stop();
    c.close();
    return { firstFrame, caughtUp, gap: gap.worst, ids, disorder };
  } finally {
    probe.close();
  }
}

/** Frame ids in one list and not the other (a reader's against the reference's for the same Last-Event-ID). */
function differ(ids, ref) {
  const a = new Set(ids);
  const b = new Set(ref);
  let n = 0;
  for (const x of a) if (!b.has(x)) n++;
  for (const x of b) if (!a.has(x)) n++;
  return n + (ids.length - a.size);
}

/** A session written through `turns` real turns (messages over HTTP): its id, last seq, and how long the turns took. */
async function writeSession(s, model, turns) {
  const made = await api(s.url, 'POST', '/session', { model });
  if (made.status !== 201) throw new Error(`POST /session: ${made.status} ${made.text}`);
  const id = made.body.sessionId;
  const t0 = now();
  for (let i = 0; i < turns; i++) {
    const r = await withTimeout(api(s.url, 'POST', `/session/${id}/message`, { text: `turn ${i + 1}` }), 120_000, `writing turn ${i + 1}`);
    if (r.status !== 200 || r.body.stopReason !== 'end_turn') throw new Error(`turn ${i + 1}: ${r.status} ${r.text.slice(0, 300)}`);
  }
  const ms = now() - t0;
  return { id, ms, lastSeq: (await api(s.url, 'GET', `/session/${id}`)).body.lastSeq };
}

async function resume(quick, rows) {
  const total = quick ? 20_000 : 100_000;
  const perTurn = 10_000;
  const reps = quick ? 1 : 2;
  // Each turn: turn_start, the user message, the chunks, the reply, cost_update, turn_end.
  const turns = Math.ceil(total / (perTurn + 5));
  const redis = await startRedis();
  const ws = tempDir('bench-fleet-resume-ws');
  const model = 'scripted:' + writeScript(ws, 'long.json', chunkScript(perTurn, turns));
  const fileHome = tempDir('bench-fleet-resume-home');
  let a;
  let f;
  try {
    const floorGap = await gapFloor();
    // The floor: the same session on the file store, resumed on its writer, then on a fresh process on the same files.
    f = await server(ws, { home: fileHome });
    const fs = await writeSession(f, model, turns);
    // The Redis fleet: written on A, resumed on A (its writer), then on a fresh B on the same Redis.
    a = await server(ws, { store: redis.url });
    const rs = await writeSession(a, model, turns);
    const rc = await redisClient(redis.url);
    try {
      await redisHolds(rc, rs.id, rs.lastSeq);
    } finally {
      rc.disconnect();
    }
    const posns = [['near the start (Last-Event-ID = 100)', () => 100], ['near the end (Last-Event-ID = last − 100)', (last) => last - 100]];
    const res = posns.map(() => ({ f: [], f2: [], a: [], b: [] }));
    for (const [i, [, at]] of posns.entries()) res[i].f.push(await resumeOnce(f, fs.id, at(fs.lastSeq), fs.lastSeq));
    await f.f.stop(); // SIGTERM: its last events written and its lock given back, for the next process on these files
    f = undefined;
    for (let r = 0; r < reps; r++) {
      for (const [i, [, at]] of posns.entries()) {
        res[i].a.push(await resumeOnce(a, rs.id, at(rs.lastSeq), rs.lastSeq));
        const f2 = await server(ws, { home: fileHome, warm: true });
        try {
          res[i].f2.push(await resumeOnce(f2, fs.id, at(fs.lastSeq), fs.lastSeq));
        } finally {
          await f2.f.stop(); // SIGTERM: the lock given back for the next one
          await f2.close();
        }
        const b = await server(ws, { store: redis.url, warm: true });
        try {
          res[i].b.push(await resumeOnce(b, rs.id, at(rs.lastSeq), rs.lastSeq));
        } finally {
          await b.close();
        }
      }
    }
    const n = k(rs.lastSeq);
    rows.push({
      bench: BENCH, metric: `resume: a session written through ${turns} real turns of ${k(perTurn)} chunks (HTTP): ${rs.lastSeq.toLocaleString('en')} events on Redis (server A), events/s (floor: the same on the JSONL store)`,
      value: rs.lastSeq / (rs.ms / 1000), unit: 'ev/s', floor: fs.lastSeq / (fs.ms / 1000), ratio: (rs.lastSeq / rs.ms) / (fs.lastSeq / fs.ms), runs: 1,
    });
    rows.push({ bench: BENCH, metric: 'resume: floor: longest GET /health answer of a bare node HTTP server, same probe, 3 s', value: floorGap, unit: 'ms', runs: 1 });
    let worstGap = 0;
    let errors = 0;
    const m = (xs, g) => median(xs.map(g));
    for (const [i, [label]] of posns.entries()) {
      const { f: onF, f2: onF2, a: onA, b: onB } = res[i];
      worstGap = Math.max(worstGap, ...onB.map((r) => r.gap));
      // Frames repeated or out of order anywhere; on B (and on later readers of A) any frame id that differs from the first reader of A's; on the fresh file process, from its writer's.
      errors += [...onF, ...onF2, ...onA, ...onB].reduce((s, r) => s + r.disorder, 0);
      errors += [...onA.slice(1), ...onB].reduce((s, r) => s + differ(r.ids, onA[0].ids), 0);
      errors += onF2.reduce((s, r) => s + differ(r.ids, onF[0].ids), 0);
      for (const [what, get] of [['first frame', (r) => r.firstFrame], ['caught up with the end', (r) => r.caughtUp]]) {
        const vb = m(onB, get);
        const vf2 = m(onF2, get);
        const va = m(onA, get);
        const vf = m(onF, get);
        rows.push({ bench: BENCH, metric: `resume ${n} on server B (the session not loaded there; floor: a fresh process on the JSONL files), ${label}: ${what}`, value: vb, unit: 'ms', floor: vf2, ratio: vb / Math.max(vf2, 0.5), runs: reps });
        rows.push({ bench: BENCH, metric: `resume ${n} on server A, its writer (floor: the JSONL store's writer), ${label}: ${what}`, value: va, unit: 'ms', floor: vf, ratio: va / Math.max(vf, 0.5), runs: onA.length });
      }
    }
    rows.push({ bench: BENCH, metric: `resume ${n} on B: longest /health answer on B while those readers start and catch up`, value: worstGap, unit: 'ms', floor: floorGap, ratio: worstGap / floorGap, runs: reps, target: '≤ 50 ms', met: worstGap <= 50 });
    rows.push({ bench: BENCH, metric: 'resume: SSE frames repeated, out of order, or not the same as the writer sends (all readers)', value: errors, unit: 'count', runs: reps, target: '0', met: errors === 0 });
  } finally {
    await f?.close();
    await a?.close();
    removeDir(fileHome);
    removeDir(ws);
    await redis.close();
  }
}

// ---------- 3. concurrency across the fleet ----------
const CONC_SCRIPT = { responses: [{ toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'true' } }] }, { chunks: ['done'] }] };
const CONC_FLAGS = ['--approval', 'full-auto', '--sandbox', 'workspace-write'];
// Every session stays in memory (on one server and on the three): past the default cap of 256, a
// maker would let its idle sessions go and the server a message reaches would run the turn itself,
// with nothing to send on.
const CONC_ENV = { FERRET_MAX_LIVE_SESSIONS: '10000' };

/** n timed turns (after one warm turn per server) on `servers`; session k made on maker(k), its message sent to sendTo(k). */
async function turnsOn(servers, n, model, readBack) {
  const count = n + servers.length;
  const made = [];
  for (let i = 0; i < count; i++) {
    const m = i % servers.length;
    const s = await api(servers[m].url, 'POST', '/session', { model });
    if (s.status !== 201) throw new Error(`POST /session: ${s.status} ${s.text}`);
    made.push({ id: s.body.sessionId, maker: m, to: (m + 1) % servers.length });
  }
  let errors = 0;
  // Errors by kind (session ids and temp paths taken out), each with how many times it came.
  const kinds = new Map();
  const bad = (what) => {
    errors++;
    const kind = what.replace(/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, 'ID').replace(/\/tmp\/ferret-[\w-]+/g, 'WS').replace(/\s+/g, ' ');
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  };
  const check = (r) => {
    if (r.status !== 200 || r.body.stopReason !== 'end_turn') bad(`message ${r.status} ${JSON.stringify(r.body).slice(0, 160)}`);
  };
  // Warm processes: one turn each first (through another server, as the timed ones).
  for (const s of made.slice(0, servers.length)) check(await withTimeout(api(servers[s.to].url, 'POST', `/session/${s.id}/message`, { text: 'warm' }), 60_000, 'warm turn'));
  const timed = made.slice(servers.length);
  const t0 = now();
  const replies = await withTimeout(
    Promise.all(timed.map((s) => api(servers[s.to].url, 'POST', `/session/${s.id}/message`, { text: 'go' }).catch((e) => ({ status: 0, body: { error: String(e) } })))),
    300_000, `${n} turns`);
  const ms = now() - t0;
  const peakMB = Math.max(...servers.map((s) => memOf(s.f.child.pid).peakMB));
  for (const r of replies) check(r);
  // Each tool call ran to completion (a failed spawn still ends the turn with end_turn): its tool_call_end, from the log.
  const { events, writer } = await readBack(made);
  made.forEach((s, i) => {
    const ends = events[i].filter((e) => e.type === 'tool_call_end');
    const end = ends[0]?.data;
    if (ends.length !== 1 || end.status !== 'completed' || end.exitCode !== 0) {
      bad(`tool call of ${s.id}: ${ends.length} ends${end ? `, ${end.status}, exit ${end.exitCode}: ${String(end.output).slice(-160)}` : ''}`);
    }
  });
  const ranOnMaker = writer ? made.filter((s, i) => writer[i] === servers[s.maker].instance).length : undefined;
  return { turnsPerS: n / (ms / 1000), errors, kinds, peakMB, ranOnMaker, sessions: made.length };
}

async function fleetConc(n, ws, model) {
  const redis = await startRedis();
  const servers = [];
  try {
    for (let i = 0; i < 3; i++) servers.push(await server(ws, { store: redis.url, extra: CONC_FLAGS, env: CONC_ENV }));
    const rc = await redisClient(redis.url);
    try {
      return await turnsOn(servers, n, model, async (made) => {
        const p = rc.pipeline();
        for (const s of made) p.xrange(logKey(s.id), '-', '+').get(leaseKey(s.id));
        const out = await withTimeout(p.exec(), 60_000, 'reading the logs back from redis');
        const events = [];
        const writer = [];
        for (let i = 0; i < made.length; i++) {
          const [e1, entries] = out[2 * i];
          const [e2, token] = out[2 * i + 1];
          if (e1 || e2) throw e1 ?? e2;
          events.push(entries.map(([, f]) => JSON.parse(f[1])));
          // A lease token is `<instance>|<seal>#<epoch>` (docs/fleet.md#trust): the instance is before the `|`.
          writer.push(token ? token.slice(0, token.lastIndexOf('|')) : undefined);
        }
        return { events, writer };
      });
    } finally {
      rc.disconnect();
    }
  } finally {
    await closeAll(servers);
    await redis.close();
  }
}

async function singleConc(n, ws, model) {
  const s = await server(ws, { extra: CONC_FLAGS, env: CONC_ENV });
  try {
    return await turnsOn([s], n, model, async (made) => ({ events: made.map((m) => readEvents(s.home, m.id)) }));
  } finally {
    await s.close();
  }
}

async function concurrency(quick, rows) {
  const n = quick ? 150 : 1000;
  const reps = quick ? 1 : 2;
  const ws = tempDir('bench-fleet-conc-ws');
  writeFileSync(join(ws, 'README'), 'bench\n');
  const model = 'scripted:' + writeScript(ws, 'conc.json', CONC_SCRIPT);
  const one = [];
  const three = [];
  try {
    for (let i = 0; i < reps; i++) {
      one.push(await singleConc(n, ws, model));
      three.push(await fleetConc(n, ws, model));
    }
  } finally {
    removeDir(ws);
  }
  const v = median(three.map((r) => r.turnsPerS));
  const f = median(one.map((r) => r.turnsPerS));
  const errs = (xs) => xs.reduce((s, r) => s + r.errors, 0);
  const quote = (xs) => {
    const all = new Map();
    for (const r of xs) for (const [kind, c] of r.kinds) all.set(kind, (all.get(kind) ?? 0) + c);
    const e = [...all].sort((x, y) => y[1] - x[1]).slice(0, 3).map(([kind, c]) => `${c} × ${kind.slice(0, 200)}`);
    return e.length ? `: ${e.join(' | ')}` : '';
  };
  const forwarded = three.reduce((s, r) => s + r.ranOnMaker, 0);
  const sessions = three.reduce((s, r) => s + r.sessions, 0);
  rows.push({ bench: BENCH, metric: `${n} sessions at once, one \`bash true\` turn each (bwrap, full-auto), ONE file-store server: turns/s`, value: f, unit: 'turns/s', runs: reps });
  rows.push({ bench: BENCH, metric: `${n} sessions at once over THREE servers on one Redis, each message sent to another server than its session's writer: turns/s (floor: one file-store server)`, value: v, unit: 'turns/s', floor: f, ratio: v / f, runs: reps });
  rows.push({ bench: BENCH, metric: `${n} turns over three servers: errors (non-2xx, stop reason ≠ end_turn, or a tool call that did not complete with exit 0; all runs)${quote(three)}`, value: errs(three), unit: 'count', runs: reps, target: '0', met: errs(three) === 0 });
  rows.push({ bench: BENCH, metric: `${n} turns on one file-store server: errors (same checks, all runs)${quote(one)}`, value: errs(one), unit: 'count', runs: reps, target: '0', met: errs(one) === 0 });
  rows.push({ bench: BENCH, metric: `three servers: sessions whose turns ran on the server that made them (the message was sent on to it), of ${sessions} (all runs)`, value: forwarded, unit: 'count', runs: reps, target: `${sessions}`, met: forwarded === sessions });
  rows.push({ bench: BENCH, metric: `${n} turns: peak RSS of the largest of the three servers (floor: the one file-store server)`, value: median(three.map((r) => r.peakMB)), unit: 'MB', floor: median(one.map((r) => r.peakMB)), ratio: median(three.map((r) => r.peakMB)) / median(one.map((r) => r.peakMB)), runs: reps });
}

/** `parts`: a subset of streaming, resume, concurrency (run on its own: `node fleet.mjs --parts streaming`). */
export async function run({ quick = false, parts = ['streaming', 'resume', 'concurrency'] } = {}) {
  const rows = [];
  if (parts.includes('streaming')) await streaming(quick, rows);
  if (parts.includes('resume')) await resume(quick, rows);
  if (parts.includes('concurrency')) await concurrency(quick, rows);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--parts');
  console.table(await run({ quick: process.argv.includes('--quick'), ...(at > 0 ? { parts: process.argv[at + 1].split(',') } : {}) }));
}
