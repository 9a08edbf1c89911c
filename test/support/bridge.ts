// The cloud bridge's test parts on loopback: the real relay (`chimera ferret relay`), a bridged
// `serve --bridge … --no-stdio`, a byte-recording TCP proxy to stand in front of the relay, and a
// tunnel client (clients/typescript/src/bridge.mjs over the `ws` package: Node 20 has no global WebSocket).
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { WebSocket } from 'ws';
import { BridgeTunnel, parsePairingLink, type BridgeDevice } from '../../clients/typescript/src/bridge.mjs';
import { createFerretClient, type FerretApiClient } from '../../clients/typescript/src/index.mjs';
import { CHIMERA, spawnFerret, stopChild, track } from './spawn.mjs';
import { StderrLog } from './stderr-log.mjs';

export interface RelayProc {
  url: string;
  port: number;
  child: ChildProcess;
  log: StderrLog;
  stop(signal?: NodeJS.Signals): Promise<unknown>;
}

/** `chimera ferret relay --port PORT` (0: a free one), resolved once it listens. */
export async function startRelay(port = 0, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RelayProc> {
  const child = track(spawn(process.execPath, [CHIMERA, 'ferret', 'relay', '--port', String(port), ...args], { env: { ...process.env, FERRET_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
  const log = new StderrLog(child.stderr);
  const url = await log.waitFor((t) => /relay listening at (ws:\/\/127\.0\.0\.1:\d+)/.exec(t)?.[1], 15_000, 'the relay listening line');
  return { url, port: Number(new URL(url).port), child, log, stop: (signal = 'SIGTERM') => stopChild(child, signal) };
}

export interface BridgedServer {
  child: ReturnType<typeof spawnFerret>;
  log: StderrLog;
  link: string;
  stop(): Promise<unknown>;
}

/** `serve --bridge RELAY --no-stdio` (no HTTP port), resolved with the pairing link it prints. */
export async function startBridged(relay: string, args: string[], env: NodeJS.ProcessEnv): Promise<BridgedServer> {
  const child = spawnFerret(['--bridge', relay, '--no-stdio', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const log = new StderrLog(child.stderr);
  const link = await log.waitFor((t) => /pair[^\n]*?(https?:\/\/\S+#pair=\S+)/.exec(t)?.[1], 15_000, 'the pairing line');
  return { child, log, link, stop: () => stopChild(child) };
}

/** A paired tunnel and a typed client over it. */
export function tunnelClient(link: string, opts: { device?: BridgeDevice; relay?: string; onDevice?: (d: BridgeDevice) => void } = {}): { tunnel: BridgeTunnel; ferret: FerretApiClient } {
  const p = parsePairingLink(link);
  if (!p) throw new Error(`not a pairing link: ${link}`);
  const tunnel = new BridgeTunnel({
    relay: opts.relay ?? p.relay,
    route: p.route,
    ...(opts.device ? { device: opts.device } : { secret: p.secret }),
    name: 'test bot',
    WebSocket,
    ...(opts.onDevice ? { onDevice: opts.onDevice } : {}),
  });
  return { tunnel, ferret: createFerretClient({ baseUrl: 'http://bridge.ferret', fetch: tunnel.fetch }) };
}

/** A TCP proxy in front of the relay that keeps every byte it moves either way. */
export async function recordingProxy(target: number): Promise<{ port: number; bytes(): Buffer; close(): Promise<void> }> {
  const chunks: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound: Socket) => {
    const outbound = connect(target, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    inbound.on('data', (d: Buffer) => {
      chunks.push(Buffer.from(d));
      outbound.write(d);
    });
    outbound.on('data', (d: Buffer) => {
      chunks.push(Buffer.from(d));
      inbound.write(d);
    });
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    bytes: () => Buffer.concat(chunks),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
