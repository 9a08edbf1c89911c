// Tools: `bash true` through ferret's whole tool path (validate → classify → decide under
// full-auto → bubblewrap / unconfined spawn → tool_call_end in the event log → client), one
// scripted response asking for K calls in a row. Per-call ms = median gap between consecutive
// `tool_call_end` notifications at the ACP client.
// Floors, same run: execa('bash', ['-c', 'true']) and child_process.spawn, sequentially; and the
// raw confined and unconfined spawns (the exact argv and env ferret builds, from
// src/sandbox/confine.ts) with child_process.spawn, which give the confined − unconfined overhead
// of `true` by itself. Ferret's calls are set against those raw spawns of the same argv.
import { spawn } from 'node:child_process';
import { execa } from 'execa';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { ferret, median, now, withTimeout } from './lib.mjs';

// The shipped CLI is one bundle, so confine.ts is bundled on its own here for its exact argv.
async function loadConfine() {
  const { build } = await import('rolldown');
  const dir = tempDir('bench-tools-confine');
  await build({ input: new URL('../../src/sandbox/confine.ts', import.meta.url).pathname, platform: 'node', external: [/^node:/], output: { dir, format: 'esm', entryFileNames: 'confine.mjs' }, logLevel: 'silent' });
  const mod = await import(`${dir}/confine.mjs`);
  removeDir(dir);
  return mod;
}
const { confineCommand } = await loadConfine();

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
    const conf = confineCommand({ mode: 'workspace-write', workspace: ws, command: 'true', env: process.env });
    const unconf = confineCommand({ mode: 'danger-full-access', workspace: ws, command: 'true', env: process.env });
    const r = { execa: [], execaEnv: [], cp: [], rawConf: [], rawUnconf: [], ww: [], dfa: [] };
    for (let i = 0; i < reps; i++) {
      r.execa.push(await rawLoop(k, () => execa('bash', ['-c', 'true'])));
      // What ferret's bash tool did before the command helper: execa with the allowlisted env only.
      r.execaEnv.push(await rawLoop(Math.min(k, 20), () => execa(unconf.file, unconf.args, { env: unconf.env, extendEnv: false, cwd: ws })));
      r.cp.push(await rawLoop(k, () => spawnTrue('bash', ['-c', 'true'], process.env)));
      r.rawUnconf.push(await rawLoop(k, () => spawnTrue(unconf.file, unconf.args, unconf.env, ws)));
      r.rawConf.push(await rawLoop(k, () => spawnTrue(conf.file, conf.args, conf.env, ws)));
      r.ww.push(await ferretCalls('workspace-write', k));
      r.dfa.push(await ferretCalls('danger-full-access', k));
    }
    const m = Object.fromEntries(Object.entries(r).map(([key, v]) => [key, median(v)]));
    return [
      { bench: 'tools', metric: 'floor: execa bash -c true', value: m.execa, unit: 'ms/call', runs: reps },
      { bench: 'tools', metric: 'execa bash -c true with only the allowlisted env (`extendEnv: false`, how ferret ran commands before its command helper)', value: m.execaEnv, unit: 'ms/call', floor: m.execa, ratio: m.execaEnv / m.execa, runs: reps },
      { bench: 'tools', metric: 'floor: child_process.spawn bash -c true', value: m.cp, unit: 'ms/call', runs: reps },
      { bench: 'tools', metric: 'raw bwrap (ferret workspace-write argv) bash -c true, child_process.spawn', value: m.rawConf, unit: 'ms/call', floor: m.rawUnconf, ratio: m.rawConf / m.rawUnconf, runs: reps },
      { bench: 'tools', metric: `confined − unconfined \`true\` overhead (raw, no ferret)`, value: m.rawConf - m.rawUnconf, unit: 'ms/call', runs: reps },
      { bench: 'tools', metric: 'ferret `bash true` call, workspace-write (bwrap), full-auto', value: m.ww, unit: 'ms/call', floor: m.rawConf, ratio: m.ww / m.rawConf, runs: reps },
      { bench: 'tools', metric: 'ferret `bash true` call, danger-full-access, full-auto', value: m.dfa, unit: 'ms/call', floor: m.rawUnconf, ratio: m.dfa / m.rawUnconf, runs: reps },
      { bench: 'tools', metric: 'ferret confined − unconfined overhead per call', value: m.ww - m.dfa, unit: 'ms/call', runs: reps },
    ];
  } finally {
    removeDir(ws);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
