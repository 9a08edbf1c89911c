// The cloud bridge as a transport beside stdio and HTTP (docs/cloud-bridge.md): dials the relay,
// keeps one Peer per remote client, checks every hello against the identity on disk (re-read
// when `chimera ferret bridge revoke` changes it, dropping a revoked device at once), and says
// what it is doing in a BridgeStatus the ACP and HTTP transports report through the core.
import { unwatchFile, watchFile } from 'node:fs';
import type { Logger } from 'pino';
import type { SandboxMode, Sessions } from '../../core/index.js';
import { decodeRelayFrame, encodeRelayFrame, pairingUrl, RELAY_OP, type BridgeStatus } from '../../protocol/index.js';
import { Dialer } from './dialer.js';
import { HttpTunnel } from './http-tunnel.js';
import { addDevice, identityPath, loadIdentity, rememberRelay, routeOf, setDevicePush, vapidKeys, type BridgeIdentity } from './identity.js';
import { startPushNotifier } from './push/notifier.js';
import { Peer } from './peer.js';

export interface BridgeOptions {
  relay: string;
  home: string;
  manager: Sessions;
  logger: Logger;
  version: string;
  sandbox: SandboxMode;
  ideSchema: boolean;
  heartbeatMs?: number;
  /** VAPID's contact for push services (FERRET_PUSH_SUBJECT). */
  pushSubject?: string | undefined;
}

export interface Bridge {
  status(): BridgeStatus;
  close(): Promise<void>;
}

export async function startBridge(opts: BridgeOptions): Promise<Bridge> {
  const log = opts.logger.child({ transport: 'bridge' });
  let identity: BridgeIdentity = rememberRelay(opts.home, opts.relay);
  const route = routeOf(identity.routeKey);
  const tunnel = await HttpTunnel.create({ manager: opts.manager, logger: opts.logger, version: opts.version, sandbox: opts.sandbox, ideSchema: opts.ideSchema });
  const peers = new Map<number, Peer>();
  let attached = false;
  let lastError: string | null = null;

  const drop = (cid: number, why: string) => {
    const p = peers.get(cid);
    if (!p) return;
    peers.delete(cid);
    p.close();
    log.warn({ cid, why }, 'bridge: connection refused or ended');
    dialer.send(encodeRelayFrame(RELAY_OP.close, cid));
  };

  const peerFor = (cid: number): Peer =>
    new Peer({
      keyFor: (kind, device) => {
        if (kind === 'pair') return Buffer.from(identity.pairing, 'base64url');
        const d = identity.devices.find((x) => x.id === device);
        return d ? Buffer.from(d.key, 'base64url') : undefined;
      },
      pairDevice: (name) => {
        const d = addDevice(opts.home, name);
        identity = loadIdentity(opts.home);
        log.info({ device: d.id, name: d.name }, 'bridge: a device paired');
        return { id: d.id, key: d.key };
      },
      pushKey: () => vapidKeys(opts.home).publicKey,
      setPush: (device, sub) => {
        setDevicePush(opts.home, device, sub);
        identity = loadIdentity(opts.home);
        log.info({ device, on: sub !== null }, 'bridge: a device turned notifications ' + (sub ? 'on' : 'off'));
      },
      tunnel,
      send: (frame) => dialer.send(encodeRelayFrame(RELAY_OP.data, cid, frame)),
      drop: (why) => drop(cid, why),
    });

  const dialer = new Dialer(
    { relay: opts.relay, routeKey: identity.routeKey, logger: log, ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}) },
    {
      attached: () => {
        attached = true;
        log.info({ relay: opts.relay, route }, 'bridge: attached to the relay');
      },
      detached: (why) => {
        if (attached) log.warn({ why }, 'bridge: lost the relay; dialling again');
        attached = false;
        lastError = why;
        // The relay forgets our clients when it loses us; they reconnect with new keys.
        for (const p of peers.values()) p.close();
        peers.clear();
      },
      frame: (data) => {
        const f = decodeRelayFrame(data);
        if (!f) return;
        if (f.op === RELAY_OP.open) peers.set(f.cid, peerFor(f.cid));
        else if (f.op === RELAY_OP.close) {
          peers.get(f.cid)?.close();
          peers.delete(f.cid);
        } else peers.get(f.cid)?.receive(f.payload);
      },
    },
  );

  // A revoke (or a new pairing secret) from the CLI: re-read, and drop whoever lost their key.
  const path = identityPath(opts.home);
  watchFile(path, { interval: 300, persistent: false }, () => {
    try {
      const before = identity.pairing;
      identity = loadIdentity(opts.home);
      for (const [cid, p] of peers) {
        const gone = p.device !== undefined ? !identity.devices.some((d) => d.id === p.device) : identity.pairing !== before;
        if (gone) drop(cid, 'device revoked');
      }
    } catch (err) {
      log.error({ err }, 'bridge: could not re-read the bridge identity');
    }
  });

  // Web Push while nobody watches: a device counts as watching while it has a ready connection.
  const stopPush = startPushNotifier({
    manager: opts.manager,
    home: opts.home,
    logger: log,
    ...(opts.pushSubject ? { subject: opts.pushSubject } : {}),
    connected: (device) => [...peers.values()].some((p) => p.ready && p.device === device),
  });

  dialer.start();
  return {
    status: () => ({
      attached,
      relay: opts.relay,
      pairingUrl: pairingUrl(opts.relay, route, identity.pairing),
      devices: [...peers.values()].filter((p) => p.ready).length,
      lastError,
      reconnects: dialer.reconnects,
    }),
    close: async () => {
      stopPush();
      unwatchFile(path);
      dialer.close();
      for (const p of peers.values()) p.close();
      peers.clear();
      await tunnel.close();
    },
  };
}
