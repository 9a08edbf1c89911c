// Fan-out over HTTP.
// (a) 100 SSE readers on one session during a scripted turn of N chunks: time from
//     POST /session/:id/message to every reader holding the turn's `result` frame, frames/s
//     delivered in total, and errors (a reader dropped or short of frames). Floor: the same turn
//     with 1 reader, same server.
// (b) 50 sessions driven at once (POST /session, then POST /session/:id/message, all concurrent):
//     turns/s and errors. Floor: the same 50 turns one after another on the same server.
import { api } from '../../test/support/http.mjs';
import { SseClient } from '../../test/support/sse.mjs';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { ferret, median, now, withTimeout } from './lib.mjs';

async function server() {
  const home = tempDir('bench-fan-home');
  const ws = tempDir('bench-fan-ws');
  const f = ferret(['--http', '--port', '0', '--cwd', ws, '--no-stdio'], home);
  const url = await f.listening();
  return { f, url, ws, close: async () => { await f.kill(); removeDir(home); removeDir(ws); } };
}

async function readersTurn(url, model, readers, n) {
  const s = await api(url, 'POST', '/session', { model });
  if (s.status !== 201) throw new Error(`POST /session ${s.status} ${JSON.stringify(s.body)}`);
  const id = s.body.sessionId;
  const rs = Array.from({ length: readers }, () => new SseClient(url, `/session/${id}/events`, { keep: false }));
  await Promise.all(rs.map((r) => r.opened));
  const t0 = now();
  const res = await api(url, 'POST', `/session/${id}/message`, { text: 'go' });
  const settled = await Promise.allSettled(rs.map((r) => r.waitFor((_, x) => x.count('result') >= 1, 60_000)));
  const ms = now() - t0;
  let errors = res.status === 200 && res.body.stopReason === 'end_turn' ? 0 : 1;
  let frames = 0;
  for (let i = 0; i < rs.length; i++) {
    frames += rs[i].total;
    if (settled[i].status === 'rejected' || rs[i].count('loop_event') < n) errors++;
    rs[i].close();
  }
  return { ms, frames, errors };
}

async function sessionTurn(url, model) {
  const s = await api(url, 'POST', '/session', { model });
  if (s.status !== 201) return false;
  const r = await api(url, 'POST', `/session/${s.body.sessionId}/message`, { text: 'go' });
  return r.status === 200 && r.body.stopReason === 'end_turn';
}

export async function run({ quick = false } = {}) {
  const reps = quick ? 1 : 3;
  const N_READERS = 100;
  const N_CHUNKS = 5_000;
  const N_SESSIONS = 50;
  const SESSION_CHUNKS = 200;
  const srv = await server();
  try {
    const bigModel = 'scripted:' + writeScript(srv.ws, 'fan.json', { responses: [{ chunks: Array.from({ length: N_CHUNKS }, (_, i) => `w${i} `) }] });
    const smallModel = 'scripted:' + writeScript(srv.ws, 'small.json', { responses: [{ chunks: Array.from({ length: SESSION_CHUNKS }, (_, i) => `w${i} `) }] });
    const one = [];
    const many = [];
    const seq = [];
    const conc = [];
    let readerErrors = 0;
    let sessionErrors = 0;
    let frames100 = 0;
    await readersTurn(srv.url, bigModel, 1, N_CHUNKS); // warm-up
    for (let i = 0; i < reps; i++) {
      one.push((await withTimeout(readersTurn(srv.url, bigModel, 1, N_CHUNKS), 90_000, 'fan-out 1 reader')).ms);
      const r = await withTimeout(readersTurn(srv.url, bigModel, N_READERS, N_CHUNKS), 90_000, 'fan-out 100 readers');
      many.push(r.ms);
      readerErrors += r.errors;
      frames100 = r.frames;
      let t0 = now();
      for (let k = 0; k < N_SESSIONS; k++) if (!(await sessionTurn(srv.url, smallModel))) sessionErrors++;
      seq.push(now() - t0);
      t0 = now();
      const ok = await withTimeout(Promise.all(Array.from({ length: N_SESSIONS }, () => sessionTurn(srv.url, smallModel).catch(() => false))), 90_000, '50 sessions');
      conc.push(now() - t0);
      sessionErrors += ok.filter((x) => !x).length;
    }
    const o = median(one);
    const m = median(many);
    const sq = median(seq);
    const c = median(conc);
    return [
      { bench: 'fan-out', metric: `1 SSE reader, ${N_CHUNKS}-chunk turn: POST message → result frame`, value: o, unit: 'ms', runs: reps },
      { bench: 'fan-out', metric: `${N_READERS} SSE readers, same turn: POST → last reader has result`, value: m, unit: 'ms', floor: o, ratio: m / o, runs: reps },
      { bench: 'fan-out', metric: `${N_READERS} SSE readers: frames delivered per second (all readers)`, value: frames100 / (m / 1000), unit: 'frames/s', runs: reps },
      { bench: 'fan-out', metric: `${N_READERS} SSE readers: errors (dropped or short readers, all runs)`, value: readerErrors, unit: 'count', runs: reps, target: '0', met: readerErrors === 0 },
      { bench: 'fan-out', metric: `${N_SESSIONS} sessions at once over HTTP (${SESSION_CHUNKS}-chunk turns): turns/s`, value: N_SESSIONS / (c / 1000), unit: 'turns/s', floor: N_SESSIONS / (sq / 1000), ratio: sq / c, runs: reps },
      { bench: 'fan-out', metric: `${N_SESSIONS} sessions at once: wall time (floor: the same turns one by one)`, value: c, unit: 'ms', floor: sq, ratio: c / sq, runs: reps },
      { bench: 'fan-out', metric: `${N_SESSIONS} sessions: errors (non-2xx or stop reason ≠ end_turn, all runs)`, value: sessionErrors, unit: 'count', runs: reps, target: '0', met: sessionErrors === 0 },
    ];
  } finally {
    await srv.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
