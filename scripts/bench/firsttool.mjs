// The first tool call of a process against its second, as the user waits for them: a fresh
// ferret (stdio, workspace-write, full-auto), initialize, session/new, then a prompt whose scripted
// model asks for one `bash true`, and, once that turn has ended, a second prompt asking for
// another. Each call's time is from writing its prompt to its tool_call_end arriving at the client
// (the call's own duration_ms starts after the turn has loaded the tools and parsed the command,
// so it leaves out what a first call waits for). The first prompt comes as a person's would, a
// moment after the session opened (2 s: the server warms up what the first call needs while it
// waits), and, for comparison, at once.
// Audit log: the same first call with a shared audit.jsonl of 1,000,000 decisions in
// CHIMERA_HOME (an earlier process has read it once and kept its index), and the peak RSS of the
// process, against the same without it.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
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

/** Epoch ms, the clock the client stamps arrivals with. */
const epoch = () => performance.timeOrigin + performance.now();

async function twoCalls(home, ws, pauseMs) {
  const f = ferret(['--cwd', ws, '--approval', 'full-auto', '--sandbox', 'workspace-write'], home, { FERRET_LOG_LEVEL: 'warn' });
  try {
    await f.call('initialize', {});
    const call = (id) => ({ toolCalls: [{ id, name: 'bash', arguments: { command: 'true' } }] });
    const model = 'scripted:' + writeScript(ws, 'first.json', { responses: [call('c1'), { chunks: ['done'] }, call('c2'), { chunks: ['done again'] }] });
    const { sessionId } = await f.call('session/new', { cwd: ws, model });
    if (pauseMs) await sleep(pauseMs);
    /** Prompt written → its tool call's result at the client, and → the turn's answer. */
    const prompt = async (text) => {
      let end;
      f.onUpdate = (p, t) => {
        if (p.kind === 'tool_call_end') end ??= { p, t };
      };
      const sent = epoch();
      const r = await withTimeout(f.call('session/message', { sessionId, text }), 60_000, 'tool turn');
      const answered = epoch();
      if (r.stopReason !== 'end_turn' || !end || end.p.result.status !== 'completed') {
        throw new Error(`tool turn: ${r.stopReason}, ${JSON.stringify(end?.p.result)}`);
      }
      return { result: end.t - sent, turn: answered - sent };
    };
    const first = await prompt('go');
    const second = await prompt('again');
    return { first: first.result, second: second.result, firstTurn: first.turn, peakMB: memOf(f.child.pid).peakMB };
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
    const ft = median(typed.map((x) => x.firstTurn));
    rows.push({ bench: 'first tool call', metric: 'second `bash true` call of a process (bwrap, full-auto; its own prompt, after the first turn): prompt → result at the client', value: s, unit: 'ms', runs: reps });
    rows.push({ bench: 'first tool call', metric: 'first `bash true` call, prompt 2 s after session/new (a person typing): prompt → result at the client', value: f, unit: 'ms', floor: s, ratio: f / s, runs: reps, target: '≤ 2× the second', met: f / s <= 2 });
    rows.push({ bench: 'first tool call', metric: '…the same first turn: prompt → its answer (the turn\'s end)', value: ft, unit: 'ms', runs: reps });
    const f0 = median(atOnce.map((x) => x.first));
    const s0 = median(atOnce.map((x) => x.second));
    rows.push({ bench: 'first tool call', metric: 'second `bash true` call, first prompt at once after session/new: prompt → result', value: s0, unit: 'ms', runs: reps });
    rows.push({ bench: 'first tool call', metric: 'first `bash true` call, prompt at once after session/new: prompt → result', value: f0, unit: 'ms', floor: s0, ratio: f0 / s0, runs: reps });

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
      rows.push({ bench: 'first tool call', metric: `first call with a shared audit.jsonl of ${n.toLocaleString('en')} decisions (indexed by an earlier process): prompt → result`, value: a, unit: 'ms', floor: b, ratio: a / b, runs: withLog.length });
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
