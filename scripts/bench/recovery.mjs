// Recovery: `session/load` of a 100,000-event log in a fresh ferret process (stdio), timed from
// the request to its result (the history replay arrives as notifications before it, and is
// counted). The log is written directly in the shape of src/core/events.ts: session_created,
// then turns of turn_start, message_chunk × many, message, cost_update, turn_end.
// Floor: a plain node process that reads the same file, JSON.parses each line and writes one
// JSON-RPC notification per line to its stdout pipe, timed the same way by the same client.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onJsonLines } from '../../test/support/jsonl.mjs';
import { track } from '../../test/support/spawn.mjs';
import { removeDir, tempDir } from '../../test/support/temp.mjs';
import { ferret, median, now, withTimeout } from './lib.mjs';

const FLOOR_SRC = `
const fs = require('node:fs');
process.stdin.once('data', () => {
  const lines = fs.readFileSync(process.argv[1], 'utf8').split('\\n');
  for (const l of lines) {
    if (!l) continue;
    const e = JSON.parse(l);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: e.sessionId, seq: e.seq, kind: e.type, ...e.data } }) + '\\n');
  }
  process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\\n');
});
`;

function writeLog(home, cwd, total) {
  const id = 'bench-recovery';
  const dir = join(home, 'eventlog', `ferret-${id}`);
  mkdirSync(dir, { recursive: true });
  const t = Date.now() - 3_600_000;
  const lines = [];
  let seq = 0;
  const push = (type, data) => lines.push(JSON.stringify({ seq: ++seq, sessionId: id, ts: t + seq, type, data }));
  push('session_created', { cwd, model: 'scripted:none.json', mode: 'code', sandbox: 'workspace-write', approval: 'auto' });
  const perTurn = 1000; // chunks per turn
  let turn = 0;
  while (seq < total) {
    const turnId = `turn_${++turn}`;
    push('turn_start', { turnId, text: `prompt ${turn}` });
    push('message', { turnId, message: { role: 'user', text: `prompt ${turn}` } });
    const room = Math.min(perTurn, total - seq - 4);
    let text = '';
    for (let i = 0; i < room; i++) {
      const c = `w${i} `;
      text += c;
      push('message_chunk', { turnId, text: c });
    }
    push('message', { turnId, message: { role: 'assistant', text, toolCalls: [] } });
    push('turn_end', { turnId, stopReason: 'end_turn', text });
  }
  writeFileSync(join(dir, 'events.jsonl'), lines.join('\n') + '\n');
  const iso = new Date(t).toISOString();
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ sessionId: id, cwd, model: 'scripted:none.json', mode: 'code', createdAt: iso, updatedAt: iso, costUsd: 0 }));
  return { id, file: join(dir, 'events.jsonl'), events: seq };
}

async function ferretLoad(home, ws, id) {
  const f = ferret(['--cwd', ws], home, { FERRET_LOG_LEVEL: 'warn' });
  try {
    await f.call('initialize', {});
    let updates = 0;
    f.onUpdate = () => updates++;
    const t0 = now();
    await withTimeout(f.call('session/load', { sessionId: id }), 60_000, 'session/load');
    if (f.stderr.includes('damaged')) throw new Error(`the generated log did not validate: ${f.stderr.slice(-1000)}`);
    return { ms: now() - t0, updates };
  } finally {
    await f.kill();
  }
}

async function floorLoad(file) {
  const c = track(spawn(process.execPath, ['-e', FLOOR_SRC, file], { stdio: ['pipe', 'pipe', 'ignore'] }));
  await new Promise((r) => setTimeout(r, 300)); // let it start; start-up is not what we time
  const done = new Promise((r) => onJsonLines(c.stdout, (m) => m.id === 1 && r(now())));
  const t0 = now();
  c.stdin.write('go\n');
  const t1 = await withTimeout(done, 60_000, 'floor load');
  c.kill('SIGKILL');
  return t1 - t0;
}

export async function run({ quick = false } = {}) {
  const reps = quick ? 1 : 3;
  const home = tempDir('bench-rec-home');
  const ws = tempDir('bench-rec-ws');
  try {
    const log = writeLog(home, ws, 100_000);
    const fe = [];
    const fl = [];
    let updates = 0;
    for (let i = 0; i < reps; i++) {
      fl.push(await floorLoad(log.file));
      const r = await ferretLoad(home, ws, log.id);
      fe.push(r.ms);
      updates = r.updates;
    }
    const v = median(fe);
    const f = median(fl);
    return [
      { bench: 'recovery', metric: `session/load of a ${log.events.toLocaleString('en')}-event log (${updates.toLocaleString('en')} replayed notifications)`, value: v, unit: 'ms', floor: f, ratio: v / f, runs: reps, target: '< 1 s', met: v < 1000 },
    ];
  } finally {
    removeDir(home);
    removeDir(ws);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
