// Start-up, the way an editor sees it: spawn → `initialize` answered, for the ferret dialect and
// for official ACP v1 (`protocolVersion: 1`, what Zed and every ACP client send); spawn →
// `session/new` answered when the editor pipelines it behind initialize (v1, `mcpServers: []`);
// spawn → `GET /health` with `--http --port 0`. Floors, interleaved in the same rounds: `node -e`
// echoing one stdin line, and codex-acp as installed from npm (its `codex-acp` bin: a node
// wrapper that starts the native binary), installed into .cache/bench/codex-acp on first use
// (skipped, with a note, when npm or its linux-x64 binary is not there).
// ferret keeps V8's compiled code in CHIMERA_HOME/ferret/code-cache after its first warm-up: every start
// but the first after an install or upgrade finds it. The timed runs share one home, primed by one
// server that lived through its warm-up; the cold row (FERRET_CODE_CACHE=0) is the first start.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { api } from '../../test/support/http.mjs';
import { onJsonLines } from '../../test/support/jsonl.mjs';
import { REPO, track } from '../../test/support/spawn.mjs';
import { removeDir, tempDir } from '../../test/support/temp.mjs';
import { ferret, median, memOf, now, sleep, withTimeout } from './lib.mjs';

const ECHO = 'process.stdin.once("data", (d) => { process.stdout.write(d); process.exit(0); })';
const V1_INIT = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } };

/** codex-acp's bin, installed on first use; or why not. */
function codexAcp() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return { skip: `no linux-x64 here (${process.platform}-${process.arch})` };
  const dir = join(REPO, '.cache', 'bench', 'codex-acp');
  const bin = join(dir, 'node_modules', '@zed-industries', 'codex-acp', 'bin', 'codex-acp.js');
  const native = join(dir, 'node_modules', '@zed-industries', 'codex-acp-linux-x64');
  if (existsSync(bin) && existsSync(native)) return { bin };
  try {
    const version = execFileSync('npm', ['view', '@zed-industries/codex-acp', 'version'], { encoding: 'utf8', timeout: 60_000 }).trim();
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', `@zed-industries/codex-acp@${version}`], { stdio: 'ignore', timeout: 300_000 });
  } catch (err) {
    return { skip: `could not install it from the npm registry (${String(err.message ?? err).split('\n')[0].slice(0, 120)})` };
  }
  if (!existsSync(bin) || !existsSync(native)) return { skip: 'the registry has no linux-x64 binary for it' };
  return { bin };
}

/**
 * Spawns `argv`, writes `lines` at once, resolves with spawn → the answer with id `id`. In a
 * process group of its own, killed whole after: codex-acp's bin is a wrapper whose native child
 * would otherwise outlive it (every run left one behind, idle, holding ~40 MB).
 */
async function answerTime(argv, lines, id, env = {}) {
  const t0 = now();
  const c = track(spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, ...env }, detached: true }));
  const got = new Promise((r) => onJsonLines(c.stdout, (m) => m.id === id && r(now() - t0)));
  c.stdin.write(lines.map((l) => JSON.stringify(l) + '\n').join(''));
  try {
    return await withTimeout(got, 20_000, `answer ${id}`);
  } finally {
    try {
      process.kill(-c.pid, 'SIGKILL');
    } catch {
      c.kill('SIGKILL'); // the group is gone already
    }
  }
}

async function floorOnce() {
  const t0 = now();
  const c = track(spawn(process.execPath, ['-e', ECHO], { stdio: ['pipe', 'pipe', 'ignore'] }));
  const got = new Promise((r) => c.stdout.once('data', () => r(now() - t0)));
  c.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
  const ms = await withTimeout(got, 10_000, 'node -e floor');
  c.kill('SIGKILL');
  return ms;
}

async function stdioOnce(home, params, env = {}) {
  const f = ferret([], home, env);
  try {
    // Written at once, like an editor does: the answer time is spawn → initialize result.
    await withTimeout(f.call('initialize', params), 10_000, 'initialize');
    return now() - f.startedAt;
  } finally {
    await f.kill();
  }
}

/** v1 initialize and session/new written together, as Zed does: spawn → the session/new answer. */
async function newSessionOnce(home, ws) {
  const f = ferret(['--cwd', ws], home);
  try {
    const init = f.request('initialize', V1_INIT);
    const created = f.request('session/new', { cwd: ws, mcpServers: [] });
    await withTimeout(init, 10_000, 'initialize');
    const r = await withTimeout(created, 10_000, 'session/new');
    if (!r.result?.sessionId) throw new Error(`session/new: ${JSON.stringify(r)}`);
    return now() - f.startedAt;
  } finally {
    await f.kill();
  }
}

async function httpOnce(home) {
  const f = ferret(['--http', '--port', '0'], home);
  try {
    const url = await f.listening();
    const r = await api(url, 'GET', '/health');
    if (r.status !== 200) throw new Error(`/health answered ${r.status}`);
    return now() - f.startedAt;
  } finally {
    await f.kill();
  }
}

/** One server that lives through its warm-up, which keeps the compiled code for the next starts. */
async function primeCodeCache(home, ws) {
  const f = ferret(['--cwd', ws], home);
  try {
    await f.call('initialize', V1_INIT);
    await f.call('session/new', { cwd: ws, mcpServers: [] });
    await f.log.waitFor((text) => (text.includes('"warmed up"') ? true : undefined), 30_000, 'the warm-up');
  } finally {
    await f.kill();
  }
}

/** Resident memory after a v1 initialize, settled 1 s. */
async function v1Rss(home) {
  const f = ferret([], home);
  try {
    await f.call('initialize', V1_INIT);
    await sleep(1000);
    return memOf(f.child.pid).rssMB;
  } finally {
    await f.kill();
  }
}

export async function run({ quick = false } = {}) {
  const n = quick ? 5 : 15;
  const home = tempDir('bench-startup');
  const ws = tempDir('bench-startup-ws');
  const codexHome = tempDir('bench-codex-home');
  const codex = codexAcp();
  const t = { floor: [], ferret: [], v1: [], v1cold: [], v1new: [], http: [], codex: [] };
  let rss;
  try {
    const codexOnce = () => answerTime([codex.bin], [{ jsonrpc: '2.0', id: 1, method: 'initialize', params: V1_INIT }], 1, { CODEX_HOME: codexHome });
    await primeCodeCache(home, ws);
    // one warm-up of each (disk cache), not counted
    await floorOnce();
    await stdioOnce(home, {});
    await stdioOnce(home, V1_INIT);
    await newSessionOnce(home, ws);
    await httpOnce(home);
    if (codex.bin) await codexOnce();
    for (let i = 0; i < n; i++) {
      t.floor.push(await floorOnce());
      t.ferret.push(await stdioOnce(home, {}));
      t.v1.push(await stdioOnce(home, V1_INIT));
      t.v1cold.push(await stdioOnce(home, V1_INIT, { FERRET_CODE_CACHE: '0' }));
      if (codex.bin) t.codex.push(await codexOnce());
      t.v1new.push(await newSessionOnce(home, ws));
      t.http.push(await httpOnce(home));
    }
    rss = await v1Rss(home);
  } finally {
    removeDir(home);
    removeDir(ws);
    removeDir(codexHome);
  }
  const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.length ? median(v) : undefined]));
  const rows = [
    { bench: 'start-up', metric: 'floor: `node -e` echoes one line', value: m.floor, unit: 'ms', runs: n },
    { bench: 'start-up', metric: 'spawn → initialize answered, ferret dialect (stdio)', value: m.ferret, unit: 'ms', floor: m.floor, ratio: m.ferret / m.floor, runs: n },
    {
      bench: 'start-up', metric: 'spawn → initialize answered, ACP v1 (`protocolVersion: 1`, what editors send)', value: m.v1, unit: 'ms', floor: m.floor, ratio: m.v1 / m.floor, runs: n,
      target: '≤ 2.5× floor', met: m.v1 / m.floor <= 2.5,
    },
    {
      bench: 'start-up', metric: 'spawn → initialize answered, ACP v1, no compiled code kept (the first start after an install or upgrade; FERRET_CODE_CACHE=0)',
      value: m.v1cold, unit: 'ms', floor: m.floor, ratio: m.v1cold / m.floor, runs: n,
    },
    { bench: 'start-up', metric: 'ACP v1 initialize ÷ ferret dialect initialize', value: m.v1 / m.ferret, unit: '×', runs: n, target: '≤ 1.2×', met: m.v1 / m.ferret <= 1.2 },
  ];
  if (codex.bin) {
    rows.push({ bench: 'start-up', metric: 'floor: codex-acp as installed (npm bin), spawn → initialize answered', value: m.codex, unit: 'ms', runs: n });
    rows.push({ bench: 'start-up', metric: 'ACP v1 initialize ÷ codex-acp initialize', value: m.v1 / m.codex, unit: '×', runs: n, target: '≤ 1.2×', met: m.v1 / m.codex <= 1.2 });
  } else {
    rows.push({ bench: 'start-up', metric: `codex-acp: skipped, ${codex.skip}`, value: undefined, unit: '', runs: 0 });
  }
  rows.push(
    { bench: 'start-up', metric: 'spawn → session/new answered, ACP v1 (initialize and session/new written together, `mcpServers: []`)', value: m.v1new, unit: 'ms', floor: m.floor, ratio: m.v1new / m.floor, runs: n },
    { bench: 'start-up', metric: 'spawn → GET /health answered (--http --port 0)', value: m.http, unit: 'ms', floor: m.floor, ratio: m.http / m.floor, runs: n },
    { bench: 'start-up', metric: 'RSS after an ACP v1 initialize (settled 1 s)', value: rss, unit: 'MB', runs: 1, target: '< 80 MB', met: rss < 80 },
  );
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
