// What only the benchmarks need: timing, statistics, scripted-model shapes, and the shared
// ferret client set up for measuring. The clients themselves (spawn/cleanup, ferret-dialect
// stdio, SSE, HTTP) are test/support/*.mjs, shared with the tests and the evals harness.
// Plain Node ESM, no dependencies beyond node:*.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { readEvents } from '../../test/support/eventlog.mjs';
import { FerretClient } from '../../test/support/ferret-client.mjs';
import { onJsonLines } from '../../test/support/jsonl.mjs';
import { exitOnSignals, track } from '../../test/support/spawn.mjs';

// Ctrl-C mid-run still kills every server and removes every temp folder (the exit-time cleanup).
exitOnSignals();

export const now = () => performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Rejects after ms so no benchmark can hang the run. */
export function withTimeout(p, ms, what) {
  let t;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise((_, rej) => (t = setTimeout(() => rej(new Error(`${what}: timed out after ${ms} ms`)), ms))),
  ]);
}

// ---------- statistics ----------
export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}
export const median = (xs) => percentile(xs, 50);

/**
 * The shared ferret-dialect client as a benchmark wants it: a private CHIMERA_HOME, info logs
 * (for the listening line), nothing recorded (a 100,000-event replay would only cost the client),
 * no per-request time limit (withTimeout bounds each step) and only a tail of stderr kept.
 */
export function ferret(args, home, env = {}) {
  return new FerretClient(args, { CHIMERA_HOME: home, FERRET_LOG_LEVEL: 'info', ...env }, { record: false, timeoutMs: 0, stderrLimit: 1_000_000 });
}

// ---------- scripted models ----------
export function chunkScript(n, turns = 1) {
  const chunks = Array.from({ length: n }, (_, i) => `w${i} `);
  return { responses: Array.from({ length: turns }, () => ({ chunks })) };
}

/** Event log `ts` (ms epoch) by seq, read after the turn (the writer flushes every tick). */
export function eventTsBySeq(home, sessionId) {
  return new Map(readEvents(home, sessionId).map((e) => [e.seq, e.ts]));
}

export const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));

// ---------- logs written straight to disk ----------
/**
 * Writes a session's events.jsonl (and meta.json) of `total` events in the shape of
 * src/protocol/events.ts, without a server: turns of 1,000 chunks, a bash call with output every
 * tenth turn (so the IDE frames' counters move). No snapshot or checkpoints: the first ferret
 * that opens it folds it from seq 1 and keeps them (prime it before timing a load).
 */
export function writeLongLog(home, id, cwd, total, { chunksPerTurn = 1000, progressPerCall = 0 } = {}) {
  const dir = join(home, 'eventlog', `ferret-${id}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'events.jsonl');
  writeFileSync(file, '');
  const t0 = Date.now() - 86_400_000;
  let seq = 0;
  let buf = [];
  let bytes = 0;
  const push = (type, data) => {
    const line = JSON.stringify({ seq: ++seq, sessionId: id, ts: t0 + seq, type, data }) + '\n';
    buf.push(line);
    bytes += line.length;
    if (bytes > 4 << 20) {
      appendFileSync(file, buf.join(''));
      buf = [];
      bytes = 0;
    }
  };
  push('session_created', { cwd, model: 'scripted:none.json', mode: 'code', sandbox: 'workspace-write', approval: 'auto' });
  let turn = 0;
  // Whole turns only (a log that ends mid-turn would load as a turn still running); notices pad the end.
  while (total - seq >= 5) {
    const turnId = `turn_${++turn}`;
    // progressPerCall: every turn is one command printing that many lines (a tool-output-heavy log).
    const lines = progressPerCall > 0 ? Math.max(1, Math.min(progressPerCall, total - seq - 11)) : 1;
    const tool = (progressPerCall > 0 || turn % 10 === 1) && total - seq >= 10 + lines;
    push('turn_start', { turnId, text: `prompt ${turn}` });
    push('message', { turnId, message: { role: 'user', text: `prompt ${turn}` } });
    if (tool) {
      const callId = `call_${turn}`;
      push('tool_call_start', { turnId, callId, tool: 'bash', args: { command: 'ls' }, kind: 'execute', title: 'ls', locations: [] });
      push('tool_call_running', { callId });
      let output = '';
      for (let i = 0; i < lines; i++) {
        const text = progressPerCall > 0 ? `${callId} line ${i}: some build output of a realistic width\n` : 'a\nb\n';
        output += text;
        push('tool_call_progress', { callId, stream: 'stdout', text });
      }
      push('tool_call_end', { callId, tool: 'bash', status: 'completed', output, durationMs: 3, exitCode: 0 });
      push('message', { turnId, message: { role: 'assistant', text: '', toolCalls: [{ id: callId, name: 'bash', args: { command: 'ls' } }] } });
      push('message', { turnId, message: { role: 'tool', results: [{ callId, name: 'bash', status: 'completed', output }] } });
    }
    const room = Math.max(1, Math.min(chunksPerTurn, total - seq - 2));
    let text = '';
    for (let i = 0; i < room; i++) {
      const c = `w${i} `;
      text += c;
      push('message_chunk', { turnId, text: c });
    }
    push('message', { turnId, message: { role: 'assistant', text, toolCalls: [] } });
    push('turn_end', { turnId, stopReason: 'end_turn', text });
  }
  while (seq < total) push('notice', { level: 'info', text: 'padding' });
  appendFileSync(file, buf.join(''));
  const iso = new Date(t0).toISOString();
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ sessionId: id, cwd, model: 'scripted:none.json', mode: 'code', createdAt: iso, updatedAt: iso, costUsd: 0 }));
  return { id, file, events: seq };
}

/** Peak and current resident set of a process (MB), from /proc. */
export function memOf(pid) {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, peakMB: kb('VmHWM') / 1024 };
}

// ---------- responsiveness ----------
const PROBE_SRC = `
const http = require('node:http');
const url = new URL(process.argv[1]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let on = false, worst = 0, n = 0, xs = [];
function once() {
  const t0 = performance.now();
  const req = http.request({ host: url.hostname, port: url.port, path: '/health', agent }, (res) => {
    res.resume();
    res.on('end', () => {
      const ms = performance.now() - t0;
      if (on) { n++; xs.push(ms); if (ms > worst) worst = ms; }
      setImmediate(once);
    });
  });
  req.on('error', () => setTimeout(once, 5));
  req.end();
}
once();
process.stdin.setEncoding('utf8').on('data', (d) => {
  for (const cmd of d.split('\\n')) {
    if (cmd === 'start') { on = true; worst = 0; n = 0; xs = []; }
    if (cmd === 'stop') { on = false; xs.sort((a, b) => a - b); process.stdout.write(JSON.stringify({ worst, n, p99: xs[Math.floor(xs.length * 0.99)] ?? 0 }) + '\\n'); }
  }
});
`;

/**
 * GET /health back to back from its own process (so the bench client's work does not delay it):
 * between start() and stop(), the longest answer is the longest the server held its event loop.
 */
export async function healthProbe(url) {
  const c = track(spawn(process.execPath, ['-e', PROBE_SRC, url], { stdio: ['pipe', 'pipe', 'ignore'] }));
  await sleep(300);
  const lines = [];
  let wake;
  onJsonLines(c.stdout, (m) => {
    lines.push(m);
    wake?.();
  });
  return {
    start: () => c.stdin.write('start\n'),
    stop: async () => {
      const have = lines.length;
      c.stdin.write('stop\n');
      await withTimeout(new Promise((r) => (wake = () => lines.length > have && r())), 10_000, 'health probe');
      return lines.at(-1);
    },
    close: () => c.kill('SIGKILL'),
  };
}

const BARE_HEALTH_SRC = `
const srv = require('node:http').createServer((q, r) => { r.writeHead(200, { 'content-type': 'application/json' }); r.end('{"ok":true}'); })
  .listen(0, '127.0.0.1', () => process.stderr.write('port ' + srv.address().port + '\\n'));
`;

/**
 * The floor of a /health gap on this machine now: a bare node HTTP server probed the same way for
 * `ms` (what scheduling alone costs on a busy machine; ferret's gaps are read against it).
 */
export async function gapFloor(ms = 3000) {
  const c = track(spawn(process.execPath, ['-e', BARE_HEALTH_SRC], { stdio: ['ignore', 'ignore', 'pipe'] }));
  try {
    let err = '';
    const port = await withTimeout(new Promise((r) => c.stderr.setEncoding('utf8').on('data', (d) => { err += d; const m = /port (\d+)/.exec(err); if (m) r(m[1]); })), 10_000, 'bare server');
    const probe = await healthProbe(`http://127.0.0.1:${port}`);
    probe.start();
    await sleep(ms);
    const g = await probe.stop();
    probe.close();
    return g.worst;
  } finally {
    c.kill('SIGKILL');
  }
}
