// One worker process of the bridge capacity bench (bridge.mjs): N bridged servers, each ferret's
// own core (createCore, its own CHIMERA_HOME and workspace) with ferret's own bridge transport
// (startBridge, what `serve --bridge` runs: the dialer, heartbeats, pairing, the encrypted peer
// and the HTTP API behind it). What a full process adds on top (the CLI, stdio, a Node runtime of
// its own) is measured apart, on real `serve --bridge` processes. Driven over IPC by bridge.mjs:
//   ← {t:'up', links:[…], baseMB, rssMB}   after every bridge is attached (or its deadline passed)
//   → {t:'status'} ← {t:'status', attached, devices, rssMB}
//   → {t:'stop'}   ← process exit once every core and bridge is closed
// argv: <bundle dir> <relay url> <count> <parent dir for homes>
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';

const [dir, relay, countArg, parent] = process.argv.slice(2);
const count = Number(countArg);
const { createCore } = await import(join(dir, 'core.mjs'));
const { startBridge } = await import(join(dir, 'bridge.mjs'));
// Warnings and errors only (a lost relay, a refused frame), to stderr: the bench counts them.
const logger = pino({ level: 'warn' }, pino.destination(2));
const rssMB = () => process.memoryUsage().rss / (1024 * 1024);
global.gc?.();
const baseMB = rssMB();

const servers = [];
for (let i = 0; i < count; i++) {
  const home = join(parent, `s${i}`);
  const cwd = join(home, 'ws');
  mkdirSync(cwd, { recursive: true });
  const core = createCore({ logger, cwd, sandbox: 'workspace-write', approval: 'auto', env: { CHIMERA_HOME: home }, home });
  const bridge = await startBridge({ relay, home, manager: core.manager, logger, version: 'bench', sandbox: 'workspace-write', ideSchema: false });
  core.reportBridge(() => bridge.status());
  servers.push({ core, bridge });
}

// Attached means the relay took the route: wait for all of them (20 s), then report who made it.
const deadline = Date.now() + 20_000;
while (servers.some((s) => !s.bridge.status().attached) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
const attached = () => servers.filter((s) => s.bridge.status().attached).length;
process.send({ t: 'up', links: servers.map((s) => (s.bridge.status().attached ? s.bridge.status().pairingUrl : null)), baseMB, rssMB: rssMB() });

process.on('message', async (m) => {
  if (m.t === 'status') {
    const devices = servers.reduce((n, s) => n + s.bridge.status().devices, 0);
    process.send({ t: 'status', attached: attached(), devices, rssMB: rssMB() });
  } else if (m.t === 'stop') {
    for (const s of servers) {
      await s.bridge.close();
      await s.core.close();
    }
    process.exit(0);
  }
});
// The bench went away without a word: do not stay behind.
process.on('disconnect', () => process.exit(0));
