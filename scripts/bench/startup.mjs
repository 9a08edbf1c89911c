// Start-up: spawn → `initialize` answered (ferret dialect), against `node -e` echoing one stdin
// line; and spawn → `GET /health` answered with `--http --port 0`. Runs are interleaved
// (floor, stdio, http, floor, ...) so machine noise hits all three alike.
import { spawn } from 'node:child_process';
import { api } from '../../test/support/http.mjs';
import { track } from '../../test/support/spawn.mjs';
import { removeDir, tempDir } from '../../test/support/temp.mjs';
import { ferret, median, now, withTimeout } from './lib.mjs';

const ECHO = 'process.stdin.once("data", (d) => { process.stdout.write(d); process.exit(0); })';

async function floorOnce() {
  const t0 = now();
  const c = track(spawn(process.execPath, ['-e', ECHO], { stdio: ['pipe', 'pipe', 'ignore'] }));
  const got = new Promise((r) => c.stdout.once('data', () => r(now() - t0)));
  c.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
  const ms = await withTimeout(got, 10_000, 'node -e floor');
  c.kill('SIGKILL');
  return ms;
}

async function stdioOnce(home) {
  const f = ferret([], home);
  try {
    // Written at once, like an editor does: the answer time is spawn → initialize result.
    await withTimeout(f.call('initialize', {}), 10_000, 'initialize');
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

export async function run({ quick = false } = {}) {
  const n = quick ? 5 : 15;
  const home = tempDir('bench-startup');
  const floor = [];
  const stdio = [];
  const httpT = [];
  try {
    // one warm-up of each (disk cache), not counted
    await floorOnce();
    await stdioOnce(home);
    await httpOnce(home);
    for (let i = 0; i < n; i++) {
      floor.push(await floorOnce());
      stdio.push(await stdioOnce(home));
      httpT.push(await httpOnce(home));
    }
  } finally {
    removeDir(home);
  }
  const f = median(floor);
  const s = median(stdio);
  const h = median(httpT);
  return [
    { bench: 'start-up', metric: 'floor: `node -e` echoes one line', value: f, unit: 'ms', runs: n },
    {
      bench: 'start-up', metric: 'spawn → initialize answered (stdio)', value: s, unit: 'ms', floor: f, ratio: s / f, runs: n,
      target: '≤ 1.5× floor and < 150 ms', met: s / f <= 1.5 && s < 150,
    },
    { bench: 'start-up', metric: 'spawn → GET /health answered (--http --port 0)', value: h, unit: 'ms', floor: f, ratio: h / f, runs: n },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
