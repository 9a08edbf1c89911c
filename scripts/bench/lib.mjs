// What only the benchmarks need: timing, statistics, scripted-model shapes, and the shared
// ferret client set up for measuring. The clients themselves (spawn/cleanup, ferret-dialect
// stdio, SSE, HTTP) are test/support/*.mjs, shared with the tests and the evals harness.
// Plain Node ESM, no dependencies beyond node:*.
import { performance } from 'node:perf_hooks';
import { readEvents } from '../../test/support/eventlog.mjs';
import { FerretClient } from '../../test/support/ferret-client.mjs';
import { exitOnSignals } from '../../test/support/spawn.mjs';

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
