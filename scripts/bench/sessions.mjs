// Many sessions: 10,000 made and used over HTTP by a server started under `ulimit -n 1024`
// (each: POST /session, POST /session/:id/message with a one-chunk scripted reply; 32 clients at
// once), then 500 of the first ones used again (GET /session/:id and one more message: they left
// memory long before, and come back from their snapshots). Errors are non-2xx answers or a stop
// reason other than end_turn; the server's open files and peak RSS are read at the end.
// Then session/list on those 10,000 sessions, in a fresh server (normal limits): the first
// GET /session right after it listens (nothing read yet), then 20 more (median), and the longest
// GET /health answer meanwhile (a probe in its own process); and a walk through every page, which
// must list all n sessions, each once (every one was answered before the first server was
// SIGKILLed): anything else is counted in its errors row.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { api, listeningUrl } from '../../test/support/http.mjs';
import { CHIMERA, track } from '../../test/support/spawn.mjs';
import { StderrLog } from '../../test/support/stderr-log.mjs';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { gapFloor, healthProbe, median, memOf, now, withTimeout } from './lib.mjs';

function server(home, ws, { nofile } = {}) {
  const argv = [CHIMERA, 'ferret', 'serve', '--http', '--port', '0', '--no-stdio', '--cwd', ws];
  const env = { ...process.env, CHIMERA_HOME: home, FERRET_LOG_LEVEL: 'info' };
  const child = nofile
    ? track(spawn('bash', ['-c', `ulimit -n ${nofile} && exec "$0" "$@"`, process.execPath, ...argv], { env, stdio: ['ignore', 'ignore', 'pipe'] }))
    : track(spawn(process.execPath, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] }));
  const log = new StderrLog(child.stderr, { limit: 1_000_000 });
  return { child, log, url: listeningUrl(log), kill: () => child.kill('SIGKILL') };
}

async function pool(n, width, work) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    for (let i = next++; i < n; i = next++) await work(i);
  }));
}

export async function run({ quick = false } = {}) {
  const n = quick ? 2000 : 10_000;
  const home = tempDir('bench-sess-home');
  const ws = tempDir('bench-sess-ws');
  const rows = [];
  try {
    const model = 'scripted:' + writeScript(ws, 'ok.json', { responses: [{ chunks: ['ok'] }, { chunks: ['ok again'] }] });
    const s = server(home, ws, { nofile: 1024 });
    let errors = 0;
    const firstErrors = [];
    const bad = (what) => {
      errors++;
      if (firstErrors.length < 3) firstErrors.push(what);
    };
    const ids = new Array(n);
    let ms;
    let fds;
    let peak;
    let again;
    try {
      const url = await s.url;
      const t0 = now();
      await withTimeout(pool(n, 32, async (i) => {
        const c = await api(url, 'POST', '/session', { model });
        if (c.status !== 201) return bad(`POST /session ${c.status} ${JSON.stringify(c.body).slice(0, 200)}`);
        ids[i] = c.body.sessionId;
        const m = await api(url, 'POST', `/session/${ids[i]}/message`, { text: 'hi' });
        if (m.status !== 200 || m.body.stopReason !== 'end_turn') bad(`message ${m.status} ${JSON.stringify(m.body).slice(0, 200)}`);
      }), 900_000, `${n} sessions`);
      ms = now() - t0;
      // The first ones again: long gone from memory, they come back on demand.
      const t1 = now();
      const old = ids.slice(0, 500).filter(Boolean);
      await pool(old.length, 16, async (i) => {
        const g = await api(url, 'GET', `/session/${old[i]}`);
        if (g.status !== 200 || g.body.turns !== 1) return bad(`GET /session/:id ${g.status} ${JSON.stringify(g.body).slice(0, 200)}`);
        const m = await api(url, 'POST', `/session/${old[i]}/message`, { text: 'again' });
        if (m.status !== 200 || m.body.stopReason !== 'end_turn') bad(`message again ${m.status} ${JSON.stringify(m.body).slice(0, 200)}`);
      });
      again = (now() - t1) / old.length;
      fds = readdirSync(`/proc/${s.child.pid}/fd`).length;
      peak = memOf(s.child.pid).peakMB;
    } finally {
      s.kill();
    }
    rows.push({ bench: 'sessions', metric: `${n.toLocaleString('en')} sessions made and used under \`ulimit -n 1024\` (HTTP, 32 clients): sessions/s`, value: n / (ms / 1000), unit: 'sessions/s', runs: 1 });
    rows.push({ bench: 'sessions', metric: `…then 500 of the first used again (loaded back on demand): ms per session (GET + one turn)`, value: again, unit: 'ms', runs: 1 });
    rows.push({ bench: 'sessions', metric: `…errors (non-2xx or stop reason ≠ end_turn)${firstErrors.length ? `: ${firstErrors.join(' | ')}` : ''}`, value: errors, unit: 'count', runs: 1, target: '0', met: errors === 0 });
    rows.push({ bench: 'sessions', metric: '…open files of the server at the end', value: fds, unit: 'count', runs: 1, target: '< 1024', met: fds < 1024 });
    rows.push({ bench: 'sessions', metric: '…peak RSS of the server', value: peak, unit: 'MB', runs: 1 });

    // session/list on them, in a fresh server.
    const l = server(home, ws);
    try {
      const url = await l.url;
      // The very first list, right after the server listens (before its idle warm-up reads the index).
      let t = now();
      const cold = await api(url, 'GET', '/session?limit=100');
      const coldMs = now() - t;
      if (cold.status !== 200 || cold.body.sessions.length !== 100) throw new Error(`GET /session: ${cold.status} ${JSON.stringify(cold.body).slice(0, 300)}`);
      await l.log.waitFor((x) => (x.includes('"msg":"warmed up"') ? true : undefined), 30_000, 'the "warmed up" log line');
      const probe = await healthProbe(url);
      try {
        probe.start();
        t = now();
        const first = await api(url, 'GET', '/session?limit=100');
        const firstMs = now() - t;
        if (first.status !== 200 || first.body.sessions.length !== 100) throw new Error(`GET /session: ${first.status}`);
        const xs = [];
        for (let i = 0; i < 20; i++) {
          t = now();
          const r = await api(url, 'GET', '/session?limit=100');
          xs.push(now() - t);
          if (r.status !== 200) throw new Error(`GET /session: ${r.status}`);
        }
        // Every page, 1,000 at a time.
        t = now();
        let seen = 0;
        const distinct = new Set();
        let cursor;
        for (let pages = 0; pages < 100; pages++) {
          const r = await api(url, 'GET', `/session?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          if (r.status !== 200) throw new Error(`GET /session (a page of the walk): ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
          seen += r.body.sessions.length;
          for (const x of r.body.sessions) distinct.add(x.sessionId);
          cursor = r.body.nextCursor;
          if (!cursor) break;
        }
        const walk = now() - t;
        // The walk must list all n sessions, each once: a paging bug (a page repeated or skipped, a
        // cursor that never ends) shows here. Each session was answered 201 before the first
        // server was SIGKILLed, so each must be listed.
        const made = ids.filter(Boolean);
        const missing = made.filter((id) => !distinct.has(id)).length;
        const twice = seen - distinct.size;
        const walkErrors = [];
        if (seen !== n) walkErrors.push(`${seen.toLocaleString('en')} listed, not ${n.toLocaleString('en')}`);
        if (twice) walkErrors.push(`${twice.toLocaleString('en')} listed more than once`);
        if (missing) walkErrors.push(`${missing.toLocaleString('en')} made but not listed`);
        if (cursor) walkErrors.push('still a nextCursor after 100 pages');
        // Sessions listed wrong: missing or extra against n, repeats, and the ones made but absent.
        const walkErrorCount = Math.abs(seen - n) + twice + missing + (cursor ? 1 : 0);
        const gap = (await probe.stop()).worst;
        const steady = median(xs);
        rows.push({ bench: 'sessions', metric: `session/list at ${n.toLocaleString('en')} (GET /session, a page of 100): the first, right after the server listens`, value: coldMs, unit: 'ms', runs: 1 });
        rows.push({ bench: 'sessions', metric: `session/list at ${n.toLocaleString('en')}: the first once the server sat idle (its warm-up read the index)`, value: firstMs, unit: 'ms', runs: 1 });
        rows.push({ bench: 'sessions', metric: `session/list at ${n.toLocaleString('en')}: a page of 100, median of 20`, value: steady, unit: 'ms', runs: 20, target: '< 30 ms', met: steady < 30 });
        rows.push({ bench: 'sessions', metric: `session/list at ${n.toLocaleString('en')}: every page of 1,000 (${seen.toLocaleString('en')} sessions)`, value: walk, unit: 'ms', runs: 1 });
        rows.push({ bench: 'sessions', metric: `…errors in that walk (not ${n.toLocaleString('en')} listed, an id listed twice, a session made but not listed)${walkErrors.length ? `: ${walkErrors.join(' | ')}` : ''}`, value: walkErrorCount, unit: 'count', runs: 1, target: '0', met: walkErrorCount === 0 && walkErrors.length === 0 });
        const floorGap = await gapFloor();
        rows.push({ bench: 'sessions', metric: 'longest GET /health answer during those lists (after the warm-up)', value: gap, unit: 'ms', floor: floorGap, ratio: gap / floorGap, runs: 1, target: '≤ 50 ms', met: gap <= 50 });
      } finally {
        probe.close();
      }
    } finally {
      l.kill();
    }
  } finally {
    removeDir(home);
    removeDir(ws);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
