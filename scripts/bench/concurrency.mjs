// Concurrency: N sessions over HTTP (made first, not timed), then one turn each at once whose
// scripted model asks for one `bash true` (workspace-write: bubblewrap; full-auto) and then says
// "done". turns/s = N / (first message sent → last answer), errors = non-2xx, stop reason ≠
// end_turn, or a tool call that did not complete with exit 0 (each session's tool_call_end, read
// back from its event log after the run). The server's peak RSS is read after.
// Floor, same run: a plain node process that spawns the same N sandboxes (the exact bwrap argv
// ferret builds, from src/sandbox/confine/confine.ts, through src/sandbox/index.ts) all at once with child_process.spawn and waits for
// them: spawns/s. The ratio is floor ÷ ferret (how many times slower ferret's turns are), each
// ferret run against the mean of the floor runs just before and after it; the median of those.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvents } from '../../test/support/eventlog.mjs';
import { api } from '../../test/support/http.mjs';
import { track } from '../../test/support/spawn.mjs';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { ferret, memOf, median, now, withTimeout } from './lib.mjs';

// The exact argv ferret builds: confine.ts bundled on its own (the CLI is one bundle).
async function confineArgv(ws) {
  const { build } = await import('rolldown');
  const dir = tempDir('bench-conc-confine');
  // Through the sandbox's door (the classifier is a lazy chunk, never loaded here).
  await build({ input: new URL('../../src/sandbox/index.ts', import.meta.url).pathname, platform: 'node', external: [/^node:/], output: { dir, format: 'esm', entryFileNames: 'sandbox.mjs' }, logLevel: 'silent' });
  const { confineCommand, createHostFacts } = await import(`${dir}/sandbox.mjs`);
  const c = confineCommand({ host: createHostFacts({ env: process.env }), mode: 'workspace-write', workspace: ws, command: 'true', env: process.env });
  removeDir(dir);
  return { file: c.file, args: c.args, env: c.env };
}

const FLOOR_SRC = `
const { spawn } = require('node:child_process');
const [n, spec] = [Number(process.argv[1]), JSON.parse(process.argv[2])];
process.stdin.once('data', () => {
  const t0 = performance.now();
  let left = n, bad = 0;
  for (let i = 0; i < n; i++) {
    const c = spawn(spec.file, spec.args, { env: spec.env, cwd: spec.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    c.stdout.resume(); c.stderr.resume();
    c.on('error', () => { bad++; if (--left === 0) done(); });
    c.on('close', (code) => { if (code !== 0) bad++; if (--left === 0) done(); });
  }
  function done() { process.stdout.write(JSON.stringify({ ms: performance.now() - t0, bad }) + '\\n'); }
});
`;

async function floor(n, spec, ws) {
  const c = track(spawn(process.execPath, ['-e', FLOOR_SRC, String(n), JSON.stringify({ ...spec, cwd: ws })], { stdio: ['pipe', 'pipe', 'ignore'] }));
  await new Promise((r) => setTimeout(r, 300));
  const got = new Promise((r) => c.stdout.setEncoding('utf8').once('data', (d) => r(JSON.parse(d))));
  c.stdin.write('go\n');
  const r = await withTimeout(got, 120_000, 'raw spawn floor');
  c.kill('SIGKILL');
  return r;
}

async function ferretTurns(n, ws, home) {
  const f = ferret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, '--approval', 'full-auto', '--sandbox', 'workspace-write'], home);
  try {
    const url = await f.listening();
    const model = 'scripted:' + writeScript(ws, 'conc.json', { responses: [{ toolCalls: [{ id: 'c1', name: 'bash', arguments: { command: 'true' } }] }, { chunks: ['done'] }] });
    // n sessions for the timed turns, and one more for the warm-up turn before them.
    const ids = [];
    for (let i = 0; i <= n; i++) {
      const s = await api(url, 'POST', '/session', { model });
      if (s.status !== 201) throw new Error(`POST /session: ${s.status} ${JSON.stringify(s.body)}`);
      ids.push(s.body.sessionId);
    }
    // A warm process: one turn first (the first tool call of a process is its own benchmark).
    await api(url, 'POST', `/session/${ids[0]}/message`, { text: 'warm' });
    const t0 = now();
    const replies = await withTimeout(Promise.all(ids.slice(1).map((id) => api(url, 'POST', `/session/${id}/message`, { text: 'go' }).catch((e) => ({ status: 0, body: { error: String(e) } })))), 300_000, `${n} turns`);
    const ms = now() - t0;
    const mem = memOf(f.child.pid);
    let errors = 0;
    const firstErrors = [];
    const bad = (what) => {
      errors++;
      if (firstErrors.length < 3) firstErrors.push(what);
    };
    for (const r of replies) if (r.status !== 200 || r.body.stopReason !== 'end_turn') bad(`message ${r.status} ${JSON.stringify(r.body).slice(0, 160)}`);
    // Each tool call ran to completion: a failed spawn or a sandbox that did not start still ends
    // the turn with end_turn, so each session's log is read back for its one tool_call_end.
    for (const id of ids) {
      const ends = readEvents(home, id).filter((e) => e.type === 'tool_call_end');
      const end = ends[0]?.data;
      if (ends.length !== 1 || end.status !== 'completed' || end.exitCode !== 0) {
        bad(`tool call of ${id}: ${ends.length} ends${end ? `, ${end.status}, exit ${end.exitCode}: ${String(end.output).slice(-160)}` : ''}`);
      }
    }
    return { turnsPerS: n / (ms / 1000), ms, errors, firstErrors, peakMB: mem.peakMB };
  } finally {
    await f.kill();
  }
}

export async function run({ quick = false } = {}) {
  const n = quick ? 200 : 1000; // turns at once (plus one session for the warm-up turn)
  const reps = quick ? 1 : 3;
  const ws = tempDir('bench-conc-ws');
  writeFileSync(join(ws, 'README'), 'bench\n');
  const spec = await confineArgv(ws);
  const fl = [];
  const fe = [];
  let errors = 0;
  const firstErrors = [];
  let peak = 0;
  let floorBad = 0;
  // The machine's speed drifts by tens of percent within a minute (a shared VM): each ferret run
  // sits between two floor runs and is compared with their mean, and the ratio is the median of
  // those per-run ratios (three runs, four floors).
  const floorOnce = async () => {
    const r = await floor(n, spec, ws);
    fl.push(n / (r.ms / 1000));
    floorBad += r.bad;
  };
  try {
    await floorOnce();
    for (let i = 0; i < reps; i++) {
      const home = tempDir('bench-conc-home');
      const t = await ferretTurns(n, ws, home);
      removeDir(home);
      fe.push(t.turnsPerS);
      errors += t.errors;
      firstErrors.push(...t.firstErrors.slice(0, 3 - firstErrors.length));
      peak = Math.max(peak, t.peakMB);
      await floorOnce();
    }
  } finally {
    removeDir(ws);
  }
  const f = median(fl);
  const v = median(fe);
  const ratio = median(fe.map((x, i) => (fl[i] + fl[i + 1]) / 2 / x));
  return [
    { bench: 'concurrency', metric: `floor: ${n} raw bwrap spawns of ferret's argv at once (child_process.spawn, a bare node)`, value: f, unit: 'spawns/s', runs: reps + 1, ...(floorBad ? { note: `${floorBad} failed` } : {}) },
    {
      bench: 'concurrency', metric: `${n} sessions at once, one \`bash true\` turn each (HTTP, bwrap, full-auto): turns/s (ratio: median of each run against the floor runs either side)`, value: v, unit: 'turns/s', floor: f, ratio, runs: reps,
      target: 'floor ÷ ferret ≤ 1.5', met: ratio <= 1.5,
    },
    { bench: 'concurrency', metric: `${n} concurrent turns: errors (non-2xx, stop reason ≠ end_turn, or a tool call that did not complete with exit 0; all runs)${firstErrors.length ? `: ${firstErrors.join(' | ')}` : ''}`, value: errors, unit: 'count', runs: reps, target: '0', met: errors === 0 },
    { bench: 'concurrency', metric: `${n} concurrent turns: server peak RSS`, value: peak, unit: 'MB', runs: reps },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
