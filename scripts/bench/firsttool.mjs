// The first tool call of a process against its second: a fresh ferret (stdio, workspace-write,
// full-auto), initialize, session/new, then one prompt whose scripted model asks for two `bash
// true` in a row. Each call's time is its tool_call_end `duration_ms` (the runner's own clock:
// validate → classify → decide → bubblewrap → spawn → result). The prompt comes as a person's
// would, a moment after the session opened (2 s: the server warms up what the first call needs
// while it waits), and, for comparison, at once.
// Audit log: the same first call with a shared audit.jsonl of 1,000,000 decisions in
// CHIMERA_HOME (an earlier process has read it once and kept its index), and the peak RSS of the
// process, against the same without it.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { ferret, median, memOf, sleep, withTimeout } from './lib.mjs';

/** Writes n policy decisions (and one person's "never") in the audit log's shape. */
function writeAudit(home, ws, n) {
  const dir = join(home, 'ferret');
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, 'audit.jsonl'), 'w', 0o600);
  try {
    let buf = [];
    for (let i = 0; i < n; i++) {
      buf.push(JSON.stringify({ ts: '2026-01-01T00:00:00.000Z', sessionId: `s${i % 977}`, workspace: ws, sandbox: 'workspace-write', tool: 'bash', key: `cat file${i}.txt`, decision: 'allow', by: 'classifier', reason: 'reads only' }) + '\n');
      if (buf.length === 10_000) {
        writeSync(fd, buf.join(''));
        buf = [];
      }
    }
    buf.push(JSON.stringify({ ts: '2026-01-01T00:00:00.000Z', sessionId: 's0', workspace: ws, sandbox: 'workspace-write', tool: 'bash', key: 'rm -rf /', decision: 'never', by: 'person' }) + '\n');
    writeSync(fd, buf.join(''));
  } finally {
    closeSync(fd);
  }
}

async function twoCalls(home, ws, pauseMs) {
  const f = ferret(['--cwd', ws, '--approval', 'full-auto', '--sandbox', 'workspace-write'], home, { FERRET_LOG_LEVEL: 'warn' });
  try {
    await f.call('initialize', {});
    const calls = [{ id: 'c1', name: 'bash', arguments: { command: 'true' } }, { id: 'c2', name: 'bash', arguments: { command: 'true' } }];
    const model = 'scripted:' + writeScript(ws, 'first.json', { responses: [{ toolCalls: calls }, { chunks: ['done'] }] });
    const { sessionId } = await f.call('session/new', { cwd: ws, model });
    if (pauseMs) await sleep(pauseMs);
    const ends = [];
    f.onUpdate = (p) => p.kind === 'tool_call_end' && ends.push(p);
    const r = await withTimeout(f.call('session/message', { sessionId, text: 'go' }), 60_000, 'tool turn');
    if (r.stopReason !== 'end_turn' || ends.length !== 2 || ends.some((e) => e.result.status !== 'completed')) {
      throw new Error(`tool turn: ${r.stopReason}, ${JSON.stringify(ends.map((e) => e.result))}`);
    }
    return { first: ends[0].duration_ms, second: ends[1].duration_ms, peakMB: memOf(f.child.pid).peakMB };
  } finally {
    await f.kill();
  }
}

export async function run({ quick = false } = {}) {
  const reps = quick ? 2 : 5;
  const ws = tempDir('bench-first-ws');
  const rows = [];
  try {
    const typed = [];
    const atOnce = [];
    for (let i = 0; i < reps; i++) {
      const home = tempDir('bench-first-home');
      typed.push(await twoCalls(home, ws, 2000));
      atOnce.push(await twoCalls(home, ws, 0));
      removeDir(home);
    }
    const f = median(typed.map((x) => x.first));
    const s = median(typed.map((x) => x.second));
    rows.push({ bench: 'first tool call', metric: 'second `bash true` call of a process (bwrap, full-auto): duration_ms', value: s, unit: 'ms', runs: reps });
    rows.push({ bench: 'first tool call', metric: 'first `bash true` call, prompt 2 s after session/new (a person typing)', value: f, unit: 'ms', floor: s, ratio: f / s, runs: reps, target: '≤ 2× the second', met: f / s <= 2 });
    const f0 = median(atOnce.map((x) => x.first));
    const s0 = median(atOnce.map((x) => x.second));
    rows.push({ bench: 'first tool call', metric: 'first `bash true` call, prompt at once after session/new', value: f0, unit: 'ms', floor: s0, ratio: f0 / s0, runs: reps });

    // A shared audit log of a million decisions, already indexed by an earlier process.
    const n = quick ? 200_000 : 1_000_000;
    const home = tempDir('bench-first-audit');
    const plain = tempDir('bench-first-plain');
    try {
      writeAudit(home, ws, n);
      await twoCalls(home, ws, 3000); // the earlier process: reads the log once (while idle), keeps the index
      const withLog = [];
      const without = [];
      for (let i = 0; i < Math.min(reps, 3); i++) {
        withLog.push(await twoCalls(home, ws, 2000));
        without.push(await twoCalls(plain, ws, 2000));
      }
      const a = median(withLog.map((x) => x.first));
      const b = median(without.map((x) => x.first));
      const pa = Math.max(...withLog.map((x) => x.peakMB));
      const pb = Math.max(...without.map((x) => x.peakMB));
      rows.push({ bench: 'first tool call', metric: `first call with a shared audit.jsonl of ${n.toLocaleString('en')} decisions (indexed by an earlier process)`, value: a, unit: 'ms', floor: b, ratio: a / b, runs: withLog.length });
      rows.push({ bench: 'first tool call', metric: `peak RSS of that process (floor: the same without the audit log)`, value: pa, unit: 'MB', floor: pb, ratio: pa / pb, runs: withLog.length });
    } finally {
      removeDir(home);
      removeDir(plain);
    }
  } finally {
    removeDir(ws);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
