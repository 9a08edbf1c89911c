// Memory (VmRSS from /proc/PID/status):
// - idle: ferret on stdio after `initialize`, settled 1 s; floor: an idle `node -e` reading stdin.
// - per idle session: RSS delta over 1,000 `session/new` on stdio, / 1,000.
// - per SSE reader: ferret --http, RSS delta over 100 idle SSE readers on one session, / 100;
//   floor: a plain node http server holding 100 open responses, same client.
import { spawn } from 'node:child_process';
import { api } from '../../test/support/http.mjs';
import { rssKiB } from '../../test/support/rss.mjs';
import { track } from '../../test/support/spawn.mjs';
import { SseClient } from '../../test/support/sse.mjs';
import { removeDir, tempDir } from '../../test/support/temp.mjs';
import { ferret, median, sleep, withTimeout } from './lib.mjs';

const HOLD_SRC = `
const held = [];
const srv = require('node:http').createServer((q, r) => { r.writeHead(200, { 'content-type': 'text/event-stream' }); r.write(': hi\\n\\n'); held.push(r); })
  .listen(0, '127.0.0.1', () => process.stderr.write('port ' + srv.address().port + '\\n'));
process.stdin.resume();
`;

async function idleFloor() {
  const c = track(spawn(process.execPath, ['-e', 'process.stdin.resume()'], { stdio: ['pipe', 'ignore', 'ignore'] }));
  await sleep(1000);
  const kb = rssKiB(c.pid);
  c.kill('SIGKILL');
  return kb;
}

async function stdioSessions(nSessions) {
  const home = tempDir('bench-mem-home');
  const ws = tempDir('bench-mem-ws');
  const f = ferret(['--cwd', ws], home, { FERRET_LOG_LEVEL: 'warn' });
  try {
    await f.call('initialize', {});
    await sleep(1000);
    const idle = rssKiB(f.child.pid);
    // a few sessions first so one-off lazy loads (session code paths) are not billed per session
    for (let i = 0; i < 10; i++) await f.call('session/new', { cwd: ws });
    await sleep(300);
    const before = rssKiB(f.child.pid);
    for (let i = 0; i < nSessions; i++) await f.call('session/new', { cwd: ws });
    await sleep(1000);
    const after = rssKiB(f.child.pid);
    return { idle, perSession: (after - before) / nSessions };
  } finally {
    await f.kill();
    removeDir(home);
    removeDir(ws);
  }
}

async function sseReaders(nReaders) {
  const home = tempDir('bench-mem-home');
  const ws = tempDir('bench-mem-ws');
  const f = ferret(['--http', '--port', '0', '--cwd', ws, '--no-stdio'], home);
  const rs = [];
  try {
    const url = await f.listening();
    const s = await api(url, 'POST', '/session', {});
    const id = s.body.sessionId;
    for (let i = 0; i < 5; i++) rs.push(new SseClient(url, `/session/${id}/events`, { keep: false }));
    await Promise.all(rs.map((r) => r.opened));
    await sleep(500);
    const before = rssKiB(f.child.pid);
    const more = Array.from({ length: nReaders }, () => new SseClient(url, `/session/${id}/events`, { keep: false }));
    rs.push(...more);
    await Promise.all(more.map((r) => r.opened));
    await sleep(1000);
    return (rssKiB(f.child.pid) - before) / nReaders;
  } finally {
    for (const r of rs) r.close();
    await f.kill();
    removeDir(home);
    removeDir(ws);
  }
}

async function sseFloor(nReaders) {
  const c = track(spawn(process.execPath, ['-e', HOLD_SRC], { stdio: ['pipe', 'ignore', 'pipe'] }));
  let err = '';
  const port = await withTimeout(new Promise((r) => c.stderr.setEncoding('utf8').on('data', (d) => { err += d; const m = /port (\d+)/.exec(err); if (m) r(m[1]); })), 10_000, 'hold floor');
  const url = `http://127.0.0.1:${port}`;
  const rs = Array.from({ length: 5 }, () => new SseClient(url, '/', { keep: false }));
  try {
    await Promise.all(rs.map((r) => r.opened));
    await sleep(500);
    const before = rssKiB(c.pid);
    const more = Array.from({ length: nReaders }, () => new SseClient(url, '/', { keep: false }));
    rs.push(...more);
    await Promise.all(more.map((r) => r.opened));
    await sleep(1000);
    return (rssKiB(c.pid) - before) / nReaders;
  } finally {
    for (const r of rs) r.close();
    c.kill('SIGKILL');
  }
}

export async function run({ quick = false } = {}) {
  const reps = quick ? 1 : 3;
  const nSessions = 1000;
  const nReaders = 100;
  const fl = [];
  const idle = [];
  const per = [];
  const sse = [];
  const sseF = [];
  for (let i = 0; i < reps; i++) {
    fl.push(await idleFloor());
    const r = await stdioSessions(nSessions);
    idle.push(r.idle);
    per.push(r.perSession);
    sse.push(await sseReaders(nReaders));
    sseF.push(await sseFloor(nReaders));
  }
  const f = median(fl) / 1024;
  const i = median(idle) / 1024;
  const p = median(per);
  const s = median(sse);
  const sf = median(sseF);
  return [
    { bench: 'memory', metric: 'idle RSS after initialize (stdio)', value: i, unit: 'MB', floor: f, ratio: i / f, runs: reps, target: '< 80 MB', met: i < 80 },
    { bench: 'memory', metric: `RSS per idle session (${nSessions} × session/new)`, value: p, unit: 'KB', runs: reps, target: '< 200 KB', met: p < 200, note: 'no meaningful floor; ratio is to the target' , ratio: p / 200 },
    { bench: 'memory', metric: `RSS per idle SSE reader (${nReaders} readers)`, value: s, unit: 'KB', floor: sf, ratio: s / Math.max(sf, 1), runs: reps },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
