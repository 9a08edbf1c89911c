// Streaming: one scripted turn of N chunks, watched at once by an ACP stdio client (the one that
// sent session/message) and an SSE client (GET /session/:id/events).
//
// events/s  = chunks / (session/message sent → last chunk arrived), per client.
// latency   = per chunk, arrival at the client (performance.timeOrigin + now) − the event's `ts`
//             in the session log (Date.now() when the core emitted it; same machine clock).
//             `ts` has ms resolution and is truncated, so latencies read up to 1 ms high.
//             This is delivery latency including queueing behind the burst: the scripted model
//             emits all chunks as fast as it can, exactly like a fast provider would.
// floor     = a plain node process that, on a line on stdin, writes the same N notifications
//             (each stamped with Date.now()) one write() each to its stdout pipe AND as SSE
//             frames to one HTTP response; the same client code reads both.
import { spawn } from 'node:child_process';
import { onJsonLines } from '../../test/support/jsonl.mjs';
import { track } from '../../test/support/spawn.mjs';
import { SseClient } from '../../test/support/sse.mjs';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { chunkScript, eventTsBySeq, ferret, median, now, percentile, withTimeout } from './lib.mjs';

const FLOOR_SRC = `
const http = require('node:http');
const N = Number(process.argv[1]);
const D = Number(process.argv[2]);
let res;
const srv = http.createServer((q, r) => {
  r.writeHead(200, { 'content-type': 'text/event-stream' });
  r.write(': floor\\n\\n');
  res = r;
  process.stderr.write('ready\\n');
}).listen(0, '127.0.0.1', () => process.stderr.write('port ' + srv.address().port + '\\n'));
process.stdin.on('data', async () => {
  for (let i = 1; i <= N; i++) {
    if (D > 0 && i > 1) await new Promise((r) => setTimeout(r, D));
    const p = { sessionId: 'floor', kind: 'agent_message_chunk', seq: i, text: 'w' + i + ' ', ts: Date.now() };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: p }) + '\\n');
    res.write('id: ' + i + '\\nevent: loop_event\\ndata: ' + JSON.stringify(p) + '\\n\\n');
  }
});
`;

function lat(arrivals, tsOf) {
  const xs = [];
  for (const [seq, t] of arrivals) xs.push(t - tsOf(seq));
  return { p50: percentile(xs, 50), p99: percentile(xs, 99) };
}

async function floorOnce(n, delayMs) {
  const c = track(spawn(process.execPath, ['-e', FLOOR_SRC, String(n), String(delayMs)], { stdio: ['pipe', 'pipe', 'pipe'] }));
  let err = '';
  const port = await withTimeout(
    new Promise((r) => c.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const m = /port (\d+)/.exec(err);
      if (m) r(Number(m[1]));
    })),
    10_000, 'floor port');
  const url = `http://127.0.0.1:${port}`;
  const acp = new Map();
  const sse = new Map();
  const tsBySeq = new Map();
  const reader = new SseClient(url, '/', { keep: false, onFrame: (f, t) => { if (f.event === 'loop_event') sse.set(f.data.seq, t); } });
  await reader.opened;
  await withTimeout(new Promise((r) => { const i = setInterval(() => { if (err.includes('ready')) { clearInterval(i); r(); } }, 2); }), 5000, 'floor ready');
  let acpDone;
  const acpAll = new Promise((r) => (acpDone = r));
  onJsonLines(c.stdout, (m, t) => {
    acp.set(m.params.seq, t);
    tsBySeq.set(m.params.seq, m.params.ts);
    if (acp.size === n) acpDone(now());
  });
  const t0 = now();
  c.stdin.write('go\n');
  const acpEnd = await withTimeout(acpAll, 60_000, 'floor acp');
  await reader.waitFor((_, r) => r.count('loop_event') >= n, 60_000);
  const sseEnd = now();
  reader.close();
  c.kill('SIGKILL');
  const tsOf = (s) => tsBySeq.get(s);
  return { acpRate: n / ((acpEnd - t0) / 1000), sseRate: n / ((sseEnd - t0) / 1000), acpLat: lat(acp, tsOf), sseLat: lat(sse, tsOf) };
}

async function ferretOnce(n, delayMs) {
  const home = tempDir('bench-stream-home');
  const ws = tempDir('bench-stream-ws');
  const f = ferret(['--http', '--port', '0', '--cwd', ws], home);
  try {
    const url = await f.listening();
    await f.call('initialize', {});
    const model = 'scripted:' + writeScript(ws, 'model.json', { responses: chunkScript(n).responses.map((r) => ({ ...r, delayMs })) });
    const { sessionId } = await f.call('session/new', { cwd: ws, model });
    const acp = new Map();
    const sse = new Map();
    let acpEnd = 0;
    f.onUpdate = (p, t) => {
      if (p.kind === 'agent_message_chunk') {
        acp.set(p.seq, t);
        if (acp.size === n) acpEnd = now();
      }
    };
    const reader = new SseClient(url, `/session/${sessionId}/events`, {
      keep: false,
      onFrame: (fr, t) => { if (fr.event === 'loop_event' && fr.data.kind === 'agent_message_chunk') sse.set(fr.data.seq, t); },
    });
    await reader.opened;
    const t0 = now();
    const r = await withTimeout(f.call('session/message', { sessionId, text: 'go' }), 120_000, 'streaming turn');
    if (r.stopReason !== 'end_turn') throw new Error(`turn ended ${r.stopReason}`);
    await reader.waitFor(() => sse.size >= n, 60_000);
    const sseEnd = now();
    reader.close();
    if (acp.size !== n) throw new Error(`ACP client got ${acp.size}/${n} chunks`);
    const ts = eventTsBySeq(home, sessionId);
    const tsOf = (s) => ts.get(s);
    return { acpRate: n / ((acpEnd - t0) / 1000), sseRate: n / ((sseEnd - t0) / 1000), acpLat: lat(acp, tsOf), sseLat: lat(sse, tsOf) };
  } finally {
    await f.kill();
    removeDir(home);
    removeDir(ws);
  }
}

export async function run({ quick = false } = {}) {
  const reps = quick ? 1 : 3;
  const rows = [];
  // burst: 20,000 chunks with no delay (throughput, and latency under a full queue);
  // paced: 2,000 chunks 1 ms apart (per-event pipeline latency without a queue).
  for (const [label, n, delayMs] of [['burst 20,000', 20_000, 0], ['paced 2,000 @1 ms', 2_000, 1]]) {
    const fl = [];
    const fe = [];
    for (let i = 0; i < reps; i++) {
      fl.push(await floorOnce(n, delayMs));
      fe.push(await ferretOnce(n, delayMs));
    }
    const m = (arr, get) => median(arr.map(get));
    for (const [name, rate, l] of [['ACP stdio', 'acpRate', 'acpLat'], ['SSE', 'sseRate', 'sseLat']]) {
      const fr = m(fl, (x) => x[rate]);
      const r = m(fe, (x) => x[rate]);
      const p50 = m(fe, (x) => x[l].p50);
      const p99 = m(fe, (x) => x[l].p99);
      const f50 = m(fl, (x) => x[l].p50);
      const f99 = m(fl, (x) => x[l].p99);
      if (delayMs === 0) {
        rows.push({ bench: 'streaming', metric: `${label}, ${name}: events/s (ACP + SSE clients at once)`, value: r, unit: 'ev/s', floor: fr, ratio: r / fr, runs: reps, target: '≥ 50,000 ev/s', met: r >= 50_000 });
      }
      rows.push(
        { bench: 'streaming', metric: `${label}, ${name}: latency p50 emit → arrival (added = ${(p50 - f50).toFixed(1)} ms)`, value: p50, unit: 'ms', floor: f50, ratio: p50 / Math.max(f50, 0.5), runs: reps },
        { bench: 'streaming', metric: `${label}, ${name}: latency p99 emit → arrival (added = ${(p99 - f99).toFixed(1)} ms)`, value: p99, unit: 'ms', floor: f99, ratio: p99 / Math.max(f99, 0.5), runs: reps, target: 'added p99 < 5 ms', met: p99 - f99 < 5 },
      );
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
