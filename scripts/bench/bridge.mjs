// The cloud bridge (docs/cloud-bridge.md).
// (a) Added latency: one ferret with --http and --bridge; one reader on its SSE stream directly,
//     one through the relay and the encrypted tunnel, both in this process, during a scripted turn
//     of N chunks 5 ms apart. Per event: arrival through the bridge − arrival direct; p50 and p99.
//     Target: p99 added ≤ 10 ms on loopback.
// (b) Relay capacity: M bridged servers on one relay, every one ferret's own bridge transport
//     (src/transports/bridge: the dialer with its heartbeats, the pairing, the encrypted peer, the
//     HTTP API behind it). FULL of them are real `chimera ferret serve --bridge --no-stdio`
//     processes; the rest are ferret's core + bridge instantiated in a few host processes
//     (bridge-host.mjs; 1,000 full processes at ~85 MB each do not fit the machine). Then one
//     remote client per server (clients/typescript/src/bridge.mjs) pairs with that server's link
//     and lists its sessions through the tunnel, all M connected at once. Errors, the relay's
//     memory per server, and the memory a bridged server costs (in a host, and as a full process).
//     `--servers=M --full=FULL` change the sizes.
import { fork, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { BridgeTunnel, parsePairingLink } from '../../clients/typescript/src/bridge.mjs';
import { createFerretClient } from '../../clients/typescript/src/index.mjs';
import { CHIMERA, REPO, stopChild, track } from '../../test/support/spawn.mjs';
import { StderrLog } from '../../test/support/stderr-log.mjs';
import { removeDir, tempDir, writeScript } from '../../test/support/temp.mjs';
import { ferret, memOf, percentile, sleep, withTimeout } from './lib.mjs';

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

/** The shipped CLI is one bundle: the core and the bridge transport are bundled here for the hosts (bridge-host.mjs). */
async function bundleBridge() {
  const { build } = await import('rolldown');
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
  const deps = Object.keys(pkg.dependencies);
  // Under the repo so the bundle's external packages resolve from its node_modules.
  const dir = join(REPO, 'node_modules/.cache/ferret-bench-bridge');
  rmSync(dir, { recursive: true, force: true });
  await build({
    input: { core: join(REPO, 'src/core/index.ts'), bridge: join(REPO, 'src/transports/bridge/bridge.ts') },
    platform: 'node',
    logLevel: 'warn',
    external: (id) => id.startsWith('node:') || deps.some((d) => id === d || id.startsWith(`${d}/`)),
    output: { dir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
  });
  return dir;
}

/** A worker's next IPC message of type t. */
const nextMessage = (child, t, ms) =>
  withTimeout(
    new Promise((res, rej) => {
      const on = (m) => m.t === t && (child.off('message', on), res(m));
      child.on('message', on);
      child.once('exit', (code) => rej(new Error(`bridge host exited (${code}) before "${t}"`)));
    }),
    ms,
    `bridge host "${t}"`,
  );

/** Runs fn over items, at most `limit` at once. */
async function pool(items, limit, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/**
 * M bridged servers on one relay, every one ferret's own bridge: `full` of them real
 * `chimera ferret serve --bridge --no-stdio` processes, the rest ferret's core + bridge transport
 * instantiated in `workers` host processes (bridge-host.mjs). Then one remote client per server
 * pairs through the relay with the secret of that server's link (the encrypted hello and pairing)
 * and lists the server's sessions through the tunnel (an encrypted HTTP round trip), all M
 * clients staying connected at once. Errors: a server not attached in time, a pairing or round
 * trip that failed or answered wrong, a device count short of the clients paired.
 */
async function capacity(m, { workers, full }) {
  const relay = await startRelay();
  const parent = tempDir('bench-bridge-hosts');
  const bundle = await bundleBridge();
  const hosts = [];
  const procs = [];
  const tunnels = [];
  let errors = 0;
  /** Counts n errors and says why on stderr. */
  const fail = (n, why) => {
    errors += n;
    process.stderr.write(`bridge capacity: ${why}\n`);
  };
  const t0 = performance.now();
  try {
    // The relay's start-up garbage is collected in its first seconds: the baseline waits for that.
    await sleep(2000);
    const rss0 = memOf(relay.child.pid).rssMB;
    const inHosts = m - full;
    const per = Math.ceil(inHosts / workers);
    const links = [];
    // One host at a time, then a few processes at a time: sixty Node processes starting at once
    // on a small machine only measure its scheduler (and starve the heartbeats of those already up).
    for (let w = 0, left = inHosts; left > 0; w++, left -= per) {
      const dir = join(parent, `w${w}`);
      mkdirSync(dir);
      const child = track(fork(join(REPO, 'scripts/bench/bridge-host.mjs'), [bundle, relay.url, String(Math.min(per, left)), dir], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }));
      const h = { child, log: new StderrLog(child.stderr, { limit: 100_000, keep: 10_000 }) };
      hosts.push(h);
      h.upMsg = await nextMessage(child, 'up', 600_000);
      for (const l of h.upMsg.links) {
        if (l) links.push({ link: l, host: true });
        else fail(1, 'a bridge in a host did not attach within 20 s');
      }
      step(`host ${w + 1}: ${h.upMsg.links.length} bridges up`);
    }
    await pool(Array.from({ length: full }, (_, i) => i), 4, async (i) => {
      const home = join(parent, `full${i}`);
      mkdirSync(join(home, 'ws'), { recursive: true });
      const f = ferret(['--no-stdio', '--cwd', join(home, 'ws'), '--bridge', relay.url], home);
      procs.push({ f });
      // The link is printed once the bridge started; attached is shown by the pairing below.
      const l = await f.log.waitFor((t) => /to pair a device, open (\S+#pair=\S+)/.exec(t)?.[1], 60_000, 'pairing line').catch(() => null);
      if (l) links.push({ link: l, host: false });
      else fail(1, 'a serve --bridge process printed no pairing link within 60 s');
    });
    const upS = (performance.now() - t0) / 1000;
    step(`${links.length} servers up in ${upS.toFixed(0)} s; pairing clients`);
    const rssServers = memOf(relay.child.pid).rssMB;

    let paired = 0;
    let hostPaired = 0;
    await pool(links, 50, async ({ link, host }) => {
      const p = parsePairingLink(link);
      const tunnel = new BridgeTunnel({ relay: p.relay, route: p.route, secret: p.secret, name: 'bench', WebSocket, connectTimeoutMs: 30_000 });
      tunnels.push(tunnel);
      try {
        const client = createFerretClient({ baseUrl: 'http://bridge.ferret', fetch: tunnel.fetch });
        const list = await withTimeout(client.listSessions(), 60_000, 'session list through the bridge');
        if (Array.isArray(list?.sessions)) {
          paired++;
          if (host) hostPaired++;
        }
        else fail(1, `an unexpected session list: ${JSON.stringify(list).slice(0, 200)}`);
      } catch (err) {
        fail(1, `a client: ${err.message}`);
      }
    });
    const allS = (performance.now() - t0) / 1000;
    const rssAll = memOf(relay.child.pid).rssMB;

    // Every host still has its clients connected (devices) and its bridges attached.
    let devices = 0;
    let hostMB = 0;
    let hostServers = 0;
    for (const h of hosts) {
      h.child.send({ t: 'status' });
      const st = await nextMessage(h.child, 'status', 30_000);
      devices += st.devices;
      hostMB += st.rssMB - h.upMsg.baseMB;
      hostServers += h.upMsg.links.length;
      if (st.attached !== h.upMsg.links.length) fail(h.upMsg.links.length - st.attached, `${h.upMsg.links.length - st.attached} bridges of a host no longer attached`);
      // A warning or error a bridge logged (a lost relay, a refused frame) counts too, one per line.
      const warned = h.log.text.split('\n').filter((l) => /"level":(40|50|60)/.test(l));
      if (warned.length) fail(warned.length, `a host logged:\n  ${warned.slice(0, 5).join('\n  ')}`);
    }
    if (hostPaired !== devices) fail(Math.abs(hostPaired - devices), `${hostPaired} clients paired with host bridges, but they count ${devices} connected devices`);
    const fullMB = procs.map((p) => memOf(p.f.child.pid).rssMB);
    return {
      errors,
      paired,
      upS,
      allS,
      relayKBPerServer: ((rssServers - rss0) * 1024) / m,
      relayKBPerPair: ((rssAll - rss0) * 1024) / m,
      relayMB: rssAll,
      hostKBPerServer: (hostMB * 1024) / hostServers,
      fullMB: fullMB.length ? percentile(fullMB, 50) : NaN,
      hosts: hosts.length,
    };
  } finally {
    for (const t of tunnels) t.close();
    await Promise.all(hosts.map(async (h) => {
      if (h.child.exitCode !== null) return;
      h.child.send({ t: 'stop' });
      await withTimeout(new Promise((r) => h.child.once('exit', r)), 30_000, 'host stop').catch(() => h.child.kill('SIGKILL'));
    }));
    await Promise.all(procs.map((p) => p.f.kill()));
    await relay.stop();
    removeDir(parent);
    rmSync(bundle, { recursive: true, force: true });
  }
}

/** Where the run is, on stderr (a capacity run takes minutes on a small machine). */
const step = (what) => process.stderr.write(`bridge: ${what}\n`);

export async function run({ quick = false, servers, full } = {}) {
  const N = quick ? 300 : 1000;
  const M = servers ?? 1000;
  const FULL = Math.min(M, full ?? (quick ? 10 : 50));
  const WORKERS = 10;
  step(`added latency, ${N} chunks`);
  const { added, missing } = await addedLatency(N);
  step(`capacity: ${M} servers (${FULL} processes), ${M} clients`);
  const p50 = percentile(added, 50);
  const p99 = percentile(added, 99);
  const cap = await capacity(M, { workers: WORKERS, full: FULL });
  const what = `${M} bridged servers (${FULL} serve --bridge processes + ${M - FULL} core+bridge instances in ${cap.hosts} hosts) + ${M} paired clients, one relay`;
  return [
    { bench: 'bridge', metric: `added latency per event, bridge vs direct SSE (${N} chunks): p50`, value: p50, unit: 'ms', runs: 1 },
    { bench: 'bridge', metric: `added latency per event, bridge vs direct SSE (${N} chunks): p99`, value: p99, unit: 'ms', runs: 1, target: '≤ 10', met: p99 <= 10 },
    { bench: 'bridge', metric: 'events missing through the bridge', value: missing, unit: 'count', runs: 1, target: '0', met: missing === 0 },
    { bench: 'bridge', metric: `${what}: errors`, value: cap.errors, unit: 'count', runs: 1, target: '0', met: cap.errors === 0 },
    { bench: 'bridge', metric: `${what}: encrypted round trips answered`, value: cap.paired, unit: 'count', runs: 1, target: String(M), met: cap.paired === M },
    { bench: 'bridge', metric: `${what}: all servers attached`, value: cap.upS, unit: 's', runs: 1 },
    { bench: 'bridge', metric: `${what}: all clients paired and answered`, value: cap.allS, unit: 's', runs: 1 },
    { bench: 'bridge', metric: `relay memory per bridged server (${M} attached, no clients)`, value: cap.relayKBPerServer, unit: 'KB', runs: 1 },
    { bench: 'bridge', metric: `relay memory per bridged server with its paired client (${M} + ${M})`, value: cap.relayKBPerPair, unit: 'KB', runs: 1 },
    { bench: 'bridge', metric: `relay RSS with ${M} servers and ${M} clients connected`, value: cap.relayMB, unit: 'MB', runs: 1 },
    { bench: 'bridge', metric: 'memory per bridged server in a host (core + bridge + one paired device)', value: cap.hostKBPerServer / 1024, unit: 'MB', runs: 1 },
    { bench: 'bridge', metric: `memory per full serve --bridge process, one paired device (RSS, median of ${FULL})`, value: cap.fullMB, unit: 'MB', runs: 1 },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const num = (name) => (arg(name) === undefined ? undefined : Number(arg(name)));
  console.table(await run({ quick: process.argv.includes('--quick'), servers: num('servers'), full: num('full') }));
  process.exit(0);
}
