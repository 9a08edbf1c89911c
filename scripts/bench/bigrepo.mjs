// Real-sized repositories (issue 28): what a command and a search cost in a 100,000-file git
// tree (big-tree.mjs) against their floors measured in the same run.
// - A confined `bash true` turn (workspace-write, full-auto, one tool call) in the big tree
//   against the same turn in an empty workspace, turns interleaved between two live servers.
// - Both in a generated tree and in this checkout with its real node_modules.
// - grep (files mode) against `rg` with the same pattern and ignore rules, and
//   the same files found; glob `**/*.js` against `rg --files`. Tool time: tool_call start to end
//   at the client.
// - /health's slowest answer while a grep of the big tree runs (a bare server's on this machine
//   is the floor).
// - Checkpoints: a turn whose command writes a file in a package folder (so /undo records the
//   workspace before and after it), the first such turn of a new session and later ones, in the
//   big tree against an empty workspace with the same folder.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { bigTree } from './big-tree.mjs';
import { ferret, gapFloor, healthProbe, median, now, withTimeout } from './lib.mjs';

/** A scripted model of `turns` turns, each one call of `call` then a short answer. */
function turnsScript(dir, name, call, turns) {
  const responses = [];
  for (let i = 0; i < turns; i++) responses.push({ chunks: ['ok'], toolCalls: [{ id: `c${i}`, ...call }] }, { chunks: ['done'] });
  return 'scripted:' + writeScript(dir, name, { responses });
}

async function server(ws, home, sandbox, extra = []) {
  const f = ferret(['--cwd', ws, '--approval', 'full-auto', '--sandbox', sandbox, ...extra], home, { FERRET_LOG_LEVEL: 'info' });
  await f.call('initialize', {});
  return f;
}

/** One turn; its wall time, and the tool call's (start to end at the client) with its result. */
async function turn(f, sessionId) {
  let start = 0;
  let tool = 0;
  let result;
  f.onUpdate = (p) => {
    if (p.kind === 'tool_call_start') start = now();
    if (p.kind === 'tool_call_end') {
      tool = now() - start;
      result = p.result;
    }
  };
  const t0 = now();
  const r = await withTimeout(f.call('session/message', { sessionId, text: 'go' }), 120_000, 'turn');
  if (r.stopReason !== 'end_turn') throw new Error(`turn ended ${r.stopReason}`);
  return { ms: now() - t0, tool, result };
}

function rg(args, cwd) {
  return new Promise((res, rej) => {
    const t0 = now();
    const c = spawn('rg', args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    c.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    c.on('error', rej);
    c.on('close', () => res({ ms: now() - t0, out }));
  });
}

/** Both trees: the generated one, and this checkout with its real node_modules. */
export async function run({ quick = false, parts = ['bash', 'search', 'checkpoints'] } = {}) {
  const rows = await runTree(bigTree(), '100,000-file git tree', { quick, parts, health: true, pattern: 'needle_[0-9]+' });
  if (parts.includes('checkpoints')) rows.push(...(await checkpointTurns(bigTree(), quick)));
  const own = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
  const files = countFiles(own);
  rows.push(...(await runTree(own, `this checkout (${files.toLocaleString('en')} files with node_modules)`, { quick, parts, health: false, pattern: 'export (async )?function' })));
  return rows;
}

function countFiles(dir) {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== '.git') n += countFiles(join(dir, e.name));
    else if (e.isFile()) n++;
  }
  return n;
}

async function runTree(tree, label, { quick, parts, health, pattern }) {
  const n = quick ? 8 : 24;
  const home = tempDir('bench-big-home');
  const empty = tempDir('bench-big-empty');
  const scripts = tempDir('bench-big-scripts');
  const rows = [];
  const servers = [];
  try {
    // ---- confined `bash true` turns, interleaved ----
    if (parts.includes('bash')) {
    const bashCall = { name: 'bash', arguments: { command: 'true' } };
    const a = await server(empty, home, 'workspace-write');
    const b = await server(tree, home, 'workspace-write');
    servers.push(a, b);
    const sa = (await a.call('session/new', { cwd: empty, model: turnsScript(scripts, 'a.json', bashCall, n + 2) })).sessionId;
    const sb = (await b.call('session/new', { cwd: tree, model: turnsScript(scripts, 'b.json', bashCall, n + 2) })).sessionId;
    for (let i = 0; i < 2; i++) {
      await turn(a, sa);
      await turn(b, sb);
    } // warm-up: the helper, the probe, the first walk of the tree
    const ea = [];
    const eb = [];
    for (let i = 0; i < n; i++) {
      const x = await turn(a, sa);
      const y = await turn(b, sb);
      if (x.result?.status !== 'completed' || y.result?.status !== 'completed') throw new Error(`bash true failed: ${JSON.stringify(y.result ?? x.result).slice(0, 300)}`);
      ea.push(x.ms);
      eb.push(y.ms);
    }
    const me = median(ea);
    const mb = median(eb);
    rows.push({ bench: 'bigrepo', metric: `\`bash true\` turn, workspace-write (bwrap), full-auto, ${label} (floor: the same turn in an empty workspace)`, value: mb, unit: 'ms', floor: me, ratio: mb / me, target: '≤ 1.3×', met: mb / me <= 1.3, runs: n });
    await a.kill();
    await b.kill();
    servers.length = 0;
    }
    if (!parts.includes('search')) return rows;

    // ---- grep and glob against ripgrep, /health during a grep ----
    const reps = quick ? 3 : 7;
    const grepCall = { name: 'grep', arguments: { pattern, output: 'files', limit: 5000 } };
    const globCall = { name: 'glob', arguments: { pattern: '**/*.js' } };
    const g = ferret(['--http', '--port', '0', '--cwd', tree, '--approval', 'full-auto', '--sandbox', 'workspace-write'], home, { FERRET_LOG_LEVEL: 'info' });
    servers.push(g);
    await g.call('initialize', {});
    const url = await g.listening();
    const sg = (await g.call('session/new', { cwd: tree, model: turnsScript(scripts, 'g.json', grepCall, reps + 1 + 2) })).sessionId;
    const sl = (await g.call('session/new', { cwd: tree, model: turnsScript(scripts, 'l.json', globCall, reps + 1) })).sessionId;
    const rgGrep = ['--no-config', '--hidden', '--glob', '!.git', '--files-with-matches', '--regexp', pattern, '.'];
    const rgFiles = ['--no-config', '--hidden', '--glob', '!.git', '--files', '.'];
    await turn(g, sg);
    await rg(rgGrep, tree); // warm caches on both sides
    const gf = [];
    const gr = [];
    let same = true;
    let found = 0;
    for (let i = 0; i < reps; i++) {
      const x = await turn(g, sg);
      const y = await rg(rgGrep, tree);
      gf.push(x.tool);
      gr.push(y.ms);
      const ours = new Set(String(x.result?.output ?? '').split('\n').filter((l) => l && existsSync(join(tree, l))));
      const theirs = new Set(y.out.split('\n').filter(Boolean).map((l) => l.replace(/^\.\//, '')));
      found = ours.size;
      if (ours.size !== theirs.size || [...theirs].some((p) => !ours.has(p))) same = false;
    }
    const lf = [];
    const lr = [];
    await turn(g, sl);
    for (let i = 0; i < reps; i++) {
      lf.push((await turn(g, sl)).tool);
      lr.push((await rg(rgFiles, tree)).ms);
    }
    const mgf = median(gf);
    const mgr = median(gr);
    const mlf = median(lf);
    const mlr = median(lr);
    rows.push({ bench: 'bigrepo', metric: `grep \`${pattern}\` (files), ${label} (floor: rg --files-with-matches, same ignore rules); same ${found} files: ${same ? 'yes' : 'NO'}`, value: mgf, unit: 'ms', floor: mgr, ratio: mgf / mgr, target: '≤ 1.5×, same files', met: same && mgf / mgr <= 1.5, runs: reps });
    rows.push({ bench: 'bigrepo', metric: `glob \`**/*.js\`, ${label} (floor: rg --files, same ignore rules)`, value: mlf, unit: 'ms', floor: mlr, ratio: mlf / mlr, target: '≤ 1.5×', met: mlf / mlr <= 1.5, runs: reps });

    if (!health) return rows;
    const floor = await gapFloor(2000);
    const probe = await healthProbe(url);
    probe.start();
    await turn(g, sg);
    await turn(g, sg);
    const h = await probe.stop();
    probe.close();
    rows.push({ bench: 'bigrepo', metric: `slowest /health answer during two greps of the 100,000-file tree (${h.n} answers; floor: a bare node server's slowest)`, value: h.worst, unit: 'ms', floor, target: '≤ 50 ms', met: h.worst <= 50, runs: 1 });
    return rows;
  } finally {
    for (const s of servers) await s.kill();
    removeDir(home);
    removeDir(empty);
    removeDir(scripts);
  }
}

/** Turns that write one file in a package folder: each takes a snapshot before and after (docs/undo.md). */
async function checkpointTurns(tree, quick) {
  const n = quick ? 6 : 16;
  const firsts = quick ? 2 : 4;
  const home = tempDir('bench-ckpt-home');
  const empty = tempDir('bench-ckpt-empty');
  const scripts = tempDir('bench-ckpt-scripts');
  const rel = 'packages/group_0/pkg_0';
  mkdirSync(join(empty, rel), { recursive: true });
  const call = { name: 'bash', arguments: { command: `date +%s%N > ${rel}/bench-scratch.txt` } };
  const servers = [];
  try {
    const a = await server(empty, home, 'workspace-write');
    const b = await server(tree, home, 'workspace-write');
    servers.push(a, b);
    // A new session's first change-making turn: its first snapshot (in the big tree, the repository's packs are borrowed).
    const fa = [];
    const fb = [];
    for (let i = 0; i < firsts; i++) {
      const sa = (await a.call('session/new', { cwd: empty, model: turnsScript(scripts, `fa${i}.json`, call, 1) })).sessionId;
      const sb = (await b.call('session/new', { cwd: tree, model: turnsScript(scripts, `fb${i}.json`, call, 1) })).sessionId;
      fa.push((await turn(a, sa)).ms);
      fb.push((await turn(b, sb)).ms);
    }
    const sa = (await a.call('session/new', { cwd: empty, model: turnsScript(scripts, 'ca.json', call, n + 2) })).sessionId;
    const sb = (await b.call('session/new', { cwd: tree, model: turnsScript(scripts, 'cb.json', call, n + 2) })).sessionId;
    for (let i = 0; i < 2; i++) {
      await turn(a, sa);
      await turn(b, sb);
    }
    const la = [];
    const lb = [];
    for (let i = 0; i < n; i++) {
      la.push((await turn(a, sa)).ms);
      lb.push((await turn(b, sb)).ms);
    }
    const rows = [];
    const [mfa, mfb, mla, mlb] = [median(fa), median(fb), median(la), median(lb)];
    rows.push({ bench: 'bigrepo', metric: "a new session's first change-making turn (its first snapshot), 100,000-file git tree (floor: the same in an empty workspace)", value: mfb, unit: 'ms', floor: mfa, ratio: mfb / mfa, runs: firsts });
    rows.push({ bench: 'bigrepo', metric: 'a later change-making turn (snapshots before and after), 100,000-file git tree (floor: the same in an empty workspace)', value: mlb, unit: 'ms', floor: mla, ratio: mlb / mla, target: '≤ 1.3×', met: mlb / mla <= 1.3, runs: n });
    return rows;
  } finally {
    for (const s of servers) await s.kill();
    rmSync(join(tree, rel, 'bench-scratch.txt'), { force: true });
    removeDir(home);
    removeDir(empty);
    removeDir(scripts);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const part = process.argv.find((x) => x.startsWith('--part='));
  console.table(await run({ quick: process.argv.includes('--quick'), ...(part ? { parts: part.slice(7).split(',') } : {}) }));
}
