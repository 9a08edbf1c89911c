// The cloud bridge (docs/cloud-bridge.md).
// (a) Added latency: one ferret with --http and --bridge; one reader on its SSE stream directly,
//     one through the relay and the encrypted tunnel, both in this process, during a scripted turn
//     of N chunks 5 ms apart. Per event: arrival through the bridge − arrival direct; p50 and p99.
//     Target: p99 added ≤ 10 ms on loopback.
// (b) Relay capacity: M bridged servers on one relay (WebSockets that dial /v1/serve with their
//     own route keys and answer every client frame, as ferret's relay side does), one client each
//     sending a frame and waiting for the answer; errors, and the relay's memory per server.
//     These servers are stand-ins speaking the relay protocol, not M ferret processes.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import { BridgeTunnel, parsePairingLink } from '../../clients/typescript/src/bridge.mjs';
import { createFerretClient } from '../../clients/typescript/src/index.mjs';
import { CHIMERA, stopChild, track } from '../../test/support/spawn.mjs';
import { StderrLog } from '../../test/support/stderr-log.mjs';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { ferret, memOf, percentile, withTimeout } from './lib.mjs';

async function startRelay() {
  const child = track(spawn(process.execPath, [CHIMERA, 'ferret', 'relay', '--port', '0'], { env: { ...process.env, FERRET_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] }));
  const log = new StderrLog(child.stderr, { limit: 100_000, keep: 10_000 });
  const url = await log.waitFor((t) => /relay listening at (ws:\/\/127\.0\.0\.1:\d+)/.exec(t)?.[1], 15_000, 'relay listening');
  return { url, child, stop: () => stopChild(child) };
}

/** Arrival time (performance.now) of every loop_event id of one turn on a typed stream. */
async function arrivals(stream, into) {
  for await (const f of stream) {
    into.set(f.id, performance.now());
    if (f.event === 'result') break;
  }
  stream.close();
}

async function addedLatency(n) {
  const home = tempDir('bench-bridge-home');
  const ws = tempDir('bench-bridge-ws');
  const relay = await startRelay();
  const model = writeScript(ws, 'model.json', { responses: [{ chunks: Array.from({ length: n }, (_, i) => `w${i} `), delayMs: 5 }] });
  const f = ferret(['--http', '--port', '0', '--no-stdio', '--cwd', ws, '--model', `scripted:${model}`, '--bridge', relay.url], home);
  try {
    const url = await f.listening();
    const link = await f.log.waitFor((t) => /pair[^\n]*?(https?:\/\/\S+#pair=\S+)/.exec(t)?.[1], 15_000, 'pairing line');
    const p = parsePairingLink(link);
    const tunnel = new BridgeTunnel({ relay: p.relay, route: p.route, secret: p.secret, name: 'bench', WebSocket });
    const direct = createFerretClient({ baseUrl: url });
    const bridged = createFerretClient({ baseUrl: 'http://bridge.ferret', fetch: tunnel.fetch });
    const { sessionId } = await direct.createSession({});
    const a = new Map();
    const b = new Map();
    const sa = direct.events(sessionId);
    const sb = bridged.events(sessionId);
    await Promise.all([sa.opened, sb.opened]);
    const done = Promise.all([arrivals(sa, a), arrivals(sb, b)]);
    await direct.sendMessage(sessionId, 'go');
    await withTimeout(done, 60_000, 'both streams to the result');
    tunnel.close();
    const added = [...a].filter(([id]) => b.has(id)).map(([id, t]) => b.get(id) - t);
    return { added, missing: a.size - added.length };
  } finally {
    await f.kill();
    await relay.stop();
    removeDir(home);
    removeDir(ws);
  }
}

/** M stand-in servers and M clients on one relay: each client's frame must come back. */
async function capacity(m) {
  const relay = await startRelay();
  const servers = [];
  const clients = [];
  let errors = 0;
  try {
    const rss0 = memOf(relay.child.pid).rssMB;
    const routes = [];
    for (let i = 0; i < m; i++) {
      const key = randomBytes(32).toString('base64url');
      const ws = new WebSocket(`${relay.url}/v1/serve`, { headers: { 'x-ferret-route-key': key } });
      // Echo every data frame back to the client it came from (op 2 = data).
      ws.on('message', (d) => {
        if (d[0] === 2) ws.send(d);
      });
      servers.push({ ws, open: new Promise((res, rej) => (ws.on('open', res), ws.on('error', rej))) });
      // The route the relay derives from the key (transports/bridge/identity.ts routeOf).
      routes.push(createHash('sha256').update(Buffer.from(key, 'base64url')).digest('base64url').slice(0, 22));
    }
    await Promise.all(servers.map((s) => s.open.catch(() => errors++)));
    const rssServers = memOf(relay.child.pid).rssMB;
    await Promise.all(
      routes.map(async (route) => {
        const ws = new WebSocket(`${relay.url}/v1/connect?route=${route}`);
        clients.push(ws);
        try {
          await new Promise((res, rej) => (ws.on('open', res), ws.on('error', rej)));
          const echoed = new Promise((res, rej) => {
            ws.on('message', (d) => res(d));
            ws.on('close', () => rej(new Error('closed')));
          });
          ws.send(Buffer.from('ping'));
          const got = await withTimeout(echoed, 20_000, 'echo');
          if (Buffer.from(got).toString() !== 'ping') errors++;
        } catch {
          errors++;
        }
      }),
    );
    return { errors, perServerKB: ((rssServers - rss0) * 1024) / m, rssMB: memOf(relay.child.pid).rssMB };
  } finally {
    for (const c of clients) c.terminate();
    for (const s of servers) s.ws.terminate();
    await relay.stop();
  }
}

export async function run({ quick = false } = {}) {
  const N = quick ? 300 : 1000;
  const M = 1000;
  const { added, missing } = await addedLatency(N);
  const p50 = percentile(added, 50);
  const p99 = percentile(added, 99);
  const cap = await capacity(M);
  return [
    { bench: 'bridge', metric: `added latency per event, bridge vs direct SSE (${N} chunks): p50`, value: p50, unit: 'ms', runs: 1 },
    { bench: 'bridge', metric: `added latency per event, bridge vs direct SSE (${N} chunks): p99`, value: p99, unit: 'ms', runs: 1, target: '≤ 10', met: p99 <= 10 },
    { bench: 'bridge', metric: 'events missing through the bridge', value: missing, unit: 'count', runs: 1, target: '0', met: missing === 0 },
    { bench: 'bridge', metric: `${M} bridged servers + ${M} clients on one relay: errors`, value: cap.errors, unit: 'count', runs: 1, target: '0', met: cap.errors === 0 },
    { bench: 'bridge', metric: `relay memory per bridged server (${M} connected)`, value: cap.perServerKB, unit: 'KB', runs: 1 },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
  process.exit(0);
}
