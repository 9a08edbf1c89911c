// Tools: `bash true` through ferret's whole tool path (validate → classify → decide under
// full-auto → bubblewrap / unconfined spawn → tool_call_end in the event log → client), one
// scripted response asking for K calls in a row. Per-call ms = median gap between consecutive
// `tool_call_end` notifications at the ACP client.
// Floors, same run: execa('bash', ['-c', 'true']) and child_process.spawn, sequentially; and the
// raw confined and unconfined spawns (the exact argv and env ferret builds, from
// src/sandbox/confine/confine.ts, through src/sandbox/index.ts) with child_process.spawn, which give the confined − unconfined overhead
// of `true` by itself. Ferret's calls are set against those raw spawns of the same argv.
// Every spawn here has stdin 'ignore', as ferret's command helper starts commands: with stdin a
// pipe (a socketpair under Node) and SHLVL unset, bash takes itself for a command run by sshd and
// sources ~/.bashrc: that measured the machine's .bashrc (110-230 ms a call here, against ~4 ms)
// rather than a spawn.
// Last, what one spawn holds the starting process's event loop, in a bare node and in one holding
// ~300 MB: why ferret starts commands from a helper process rather than from the server.
import { spawn } from 'node:child_process';
import { execa } from 'execa';
import { track } from '../../test/support/spawn.mjs';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { ferret, median, now, withTimeout } from './lib.mjs';

// The shipped CLI is one bundle, so confine.ts is bundled on its own here for its exact argv.
async function loadConfine() {
  const { build } = await import('rolldown');
  const dir = tempDir('bench-tools-confine');
  // Through the sandbox's door (the classifier is a lazy chunk, never loaded here).
  await build({ input: new URL('../../src/sandbox/index.ts', import.meta.url).pathname, platform: 'node', external: [/^node:/], output: { dir, format: 'esm', entryFileNames: 'sandbox.mjs' }, logLevel: 'silent' });
  const mod = await import(`${dir}/sandbox.mjs`);
  removeDir(dir);
  return mod;
}
const { confineCommand, createHostFacts } = await loadConfine();
const host = createHostFacts({ env: process.env });

async function ferretCalls(sandbox, k) {
  const home = tempDir('bench-tools-home');
  const ws = tempDir('bench-tools-ws');
  const f = ferret(['--cwd', ws, '--approval', 'full-auto', '--sandbox', sandbox], home, { FERRET_LOG_LEVEL: 'warn' });
  try {
    await f.call('initialize', {});
    const calls = Array.from({ length: k }, (_, i) => ({ id: `c${i}`, name: 'bash', arguments: { command: 'true' } }));
    const model = 'scripted:' + writeScript(ws, 'tools.json', { responses: [{ chunks: ['ok'], toolCalls: calls }, { chunks: ['done'] }] });
    const { sessionId } = await f.call('session/new', { cwd: ws, model });
    const ends = [];
    let bad = 0;
    f.onUpdate = (p) => {
      if (p.kind === 'tool_call_end') {
        ends.push(now());
        if (p.result.status !== 'completed' || p.result.exitCode !== 0) bad++;
      }
      if (p.kind === 'permission_request') bad++;
    };
    const r = await withTimeout(f.call('session/message', { sessionId, text: 'go' }), 120_000, 'tool turn');
    if (r.stopReason !== 'end_turn' || ends.length !== k || bad) throw new Error(`tool turn: ${r.stopReason}, ${ends.length}/${k} ends, ${bad} bad`);
    const gaps = [];
    for (let i = 1; i < ends.length; i++) gaps.push(ends[i] - ends[i - 1]);
    return median(gaps);
  } finally {
    await f.kill();
    removeDir(home);
    removeDir(ws);
  }
}

async function rawLoop(k, once) {
  const xs = [];
  await once(); // warm-up, not counted
  for (let i = 0; i < k; i++) {
    const t0 = now();
    await once();
    xs.push(now() - t0);
  }
  return median(xs);
}

// What starting a process costs the event loop of the process that starts it: the synchronous
// part of child_process.spawn (libuv forks, then execs), in a node holding `mb` MB of live JS
// objects. The fork copies the parent's page tables, so it grows with the parent's memory.
const FORK_SRC = `
const { spawn } = require('node:child_process');
const keep = [];
for (let i = 0; i < Number(process.argv[1]); i++) { const a = new Array(16384); for (let j = 0; j < a.length; j++) a[j] = { j, s: 'x' + j }; keep.push(a); }
const rss = process.memoryUsage().rss / 2 ** 20;
const once = () => new Promise((r) => {
  const t = process.hrtime.bigint();
  const c = spawn('true', [], { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  c.stdout.resume(); c.stderr.resume();
  c.on('close', () => r(ms));
});
(async () => {
  await once();
  const xs = [];
  for (let i = 0; i < 30; i++) xs.push(await once());
  xs.sort((a, b) => a - b);
  process.stdout.write(JSON.stringify({ rssMB: rss, ms: xs[15] }) + '\\n');
})();
`;

async function forkCost(units) {
  const c = track(spawn(process.execPath, ['--max-old-space-size=4096', '-e', FORK_SRC, String(units)], { stdio: ['ignore', 'pipe', 'inherit'] }));
  let out = '';
  c.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  await withTimeout(new Promise((r) => c.on('close', r)), 60_000, 'fork cost');
  return JSON.parse(out);
}

const spawnTrue = (file, args, env, cwd) =>
  new Promise((res, rej) => {
    const c = spawn(file, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    c.on('error', rej);
    c.on('exit', (code) => (code === 0 ? res() : rej(new Error(`exit ${code}`))));
  });

export async function run({ quick = false } = {}) {
  const k = quick ? 20 : 60;
  const reps = quick ? 1 : 3;
  const ws = tempDir('bench-tools-raw');
  try {
    const conf = confineCommand({ host, mode: 'workspace-write', workspace: ws, command: 'true', env: process.env });
    const unconf = confineCommand({ host, mode: 'danger-full-access', workspace: ws, command: 'true', env: process.env });
    const r = { execa: [], cp: [], rawConf: [], rawUnconf: [], ww: [], dfa: [], forkBare: [], forkBig: [], rssBare: [], rssBig: [] };
    for (let i = 0; i < reps; i++) {
      const bare = await forkCost(0);
      const big = await forkCost(150); // ~300 MB resident: a server holding many sessions
      r.forkBare.push(bare.ms);
      r.rssBare.push(bare.rssMB);
      r.forkBig.push(big.ms);
      r.rssBig.push(big.rssMB);
      r.execa.push(await rawLoop(k, () => execa('bash', ['-c', 'true'], { stdin: 'ignore' })));
      r.cp.push(await rawLoop(k, () => spawnTrue('bash', ['-c', 'true'], process.env)));
      r.rawUnconf.push(await rawLoop(k, () => spawnTrue(unconf.file, unconf.args, unconf.env, ws)));
      r.rawConf.push(await rawLoop(k, () => spawnTrue(conf.file, conf.args, conf.env, ws)));
      r.ww.push(await ferretCalls('workspace-write', k));
      r.dfa.push(await ferretCalls('danger-full-access', k));
    }
    const m = Object.fromEntries(Object.entries(r).map(([key, v]) => [key, median(v)]));
    return [
      { bench: 'tools', metric: 'floor: execa bash -c true (stdin ignored)', value: m.execa, unit: 'ms/call', runs: reps },
      { bench: 'tools', metric: 'floor: child_process.spawn bash -c true (stdin ignored)', value: m.cp, unit: 'ms/call', runs: reps },
      { bench: 'tools', metric: 'raw bwrap (ferret workspace-write argv) bash -c true, child_process.spawn, stdin ignored (floor: the unconfined argv, the same way)', value: m.rawConf, unit: 'ms/call', floor: m.rawUnconf, ratio: m.rawConf / m.rawUnconf, runs: reps },
      { bench: 'tools', metric: `confined − unconfined \`true\` overhead (raw, no ferret)`, value: m.rawConf - m.rawUnconf, unit: 'ms/call', runs: reps },
      { bench: 'tools', metric: 'ferret `bash true` call, workspace-write (bwrap), full-auto', value: m.ww, unit: 'ms/call', floor: m.rawConf, ratio: m.ww / m.rawConf, runs: reps },
      { bench: 'tools', metric: 'ferret `bash true` call, danger-full-access, full-auto', value: m.dfa, unit: 'ms/call', floor: m.rawUnconf, ratio: m.dfa / m.rawUnconf, runs: reps },
      { bench: 'tools', metric: 'ferret confined − unconfined overhead per call', value: m.ww - m.dfa, unit: 'ms/call', runs: reps },
      { bench: 'tools', metric: `event loop held by one child_process.spawn, in a bare node (${m.rssBare.toFixed(0)} MB resident, like the command helper)`, value: m.forkBare, unit: 'ms', runs: reps },
      { bench: 'tools', metric: `event loop held by one child_process.spawn, in a node holding ${m.rssBig.toFixed(0)} MB (what the server would pay without its command helper)`, value: m.forkBig, unit: 'ms', floor: m.forkBare, ratio: m.forkBig / m.forkBare, runs: reps },
    ];
  } finally {
    removeDir(ws);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
