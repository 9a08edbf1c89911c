// What a bridged server keeps under CHIMERA_HOME/ferret/bridge.json (mode 0600): its route key
// (the relay knows only its hash, the route), the pairing secret a new device proves it holds,
// and each paired device's own key. `chimera ferret bridge pair|devices|revoke` and the running
// server share the file; the server watches it, so a revoke takes effect at once.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { newVapidKeys } from './push/vapid.js';

/** A browser's Web Push subscription (push/): where its push service takes messages, and its keys. */
const PushSubscriptionSchema = z.object({ endpoint: z.string(), keys: z.object({ p256dh: z.string(), auth: z.string() }) });
const DeviceSchema = z.object({ id: z.string(), name: z.string(), key: z.string(), pairedAt: z.string(), push: PushSubscriptionSchema.optional() });
const IdentitySchema = z.object({
  v: z.literal(1),
  routeKey: z.string().min(40),
  pairing: z.string().min(40),
  relay: z.string().optional(),
  /** ferret's VAPID key pair for Web Push, made the first time a device asks for notifications. */
  vapid: z.object({ publicKey: z.string(), privateKey: z.string() }).optional(),
  devices: z.array(DeviceSchema),
});
export type BridgeDevice = z.infer<typeof DeviceSchema>;
export type StoredPushSubscription = z.infer<typeof PushSubscriptionSchema>;
export type BridgeIdentity = z.infer<typeof IdentitySchema>;

export const identityPath = (home: string): string => join(home, 'ferret', 'bridge.json');

/** The routing id the relay pairs clients with this server by: a hash of the route key, so knowing it does not let anyone serve it. */
export function routeOf(routeKey: string): string {
  return createHash('sha256').update(Buffer.from(routeKey, 'base64url')).digest('base64url').slice(0, 22);
}

const secret = (): string => randomBytes(32).toString('base64url');

/** The identity on disk, made on first use. A file that does not parse is an error naming it, not a silent new identity. */
export function loadIdentity(home: string): BridgeIdentity {
  const path = identityPath(home);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const fresh: BridgeIdentity = { v: 1, routeKey: secret(), pairing: secret(), devices: [] };
    saveIdentity(home, fresh);
    return fresh;
  }
  const parsed = IdentitySchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path} is not a bridge identity (${parsed.error.issues[0]?.message ?? 'bad shape'}); move it away to start over`);
  return parsed.data;
}

export function saveIdentity(home: string, id: BridgeIdentity): void {
  const path = identityPath(home);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(id, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, path);
}

/** A new pairing secret: links shown before stop working (devices already paired keep their keys). */
export function rotatePairing(home: string): BridgeIdentity {
  const id = loadIdentity(home);
  const next = { ...id, pairing: secret() };
  saveIdentity(home, next);
  return next;
}

/** Records a newly paired device and returns it with its key (sent to the device once, encrypted). */
export function addDevice(home: string, name: string): BridgeDevice {
  const id = loadIdentity(home);
  const device: BridgeDevice = { id: `dev_${randomBytes(6).toString('hex')}`, name: name.slice(0, 80) || 'device', key: secret(), pairedAt: new Date().toISOString() };
  saveIdentity(home, { ...id, devices: [...id.devices, device] });
  return device;
}

/**
 * Forgets a device. The pairing secret is replaced too: the revoked device saw the link it paired
 * with, and must not be able to pair again with it. False when no device has that id.
 */
export function revokeDevice(home: string, deviceId: string): boolean {
  const id = loadIdentity(home);
  if (!id.devices.some((d) => d.id === deviceId)) return false;
  saveIdentity(home, { ...id, pairing: secret(), devices: id.devices.filter((d) => d.id !== deviceId) });
  return true;
}

/** Remembers the relay last dialled, so `bridge pair` can print a link without being told it again. */
export function rememberRelay(home: string, relay: string): BridgeIdentity {
  const id = loadIdentity(home);
  if (id.relay === relay) return id;
  const next = { ...id, relay };
  saveIdentity(home, next);
  return next;
}

/** ferret's VAPID keys, made and kept on first use. */
export function vapidKeys(home: string): { publicKey: string; privateKey: string } {
  const id = loadIdentity(home);
  if (id.vapid) return id.vapid;
  const vapid = newVapidKeys();
  saveIdentity(home, { ...id, vapid });
  return vapid;
}

/** Keeps (or, with null, forgets) a device's push subscription. False when the device is unknown. */
export function setDevicePush(home: string, deviceId: string, push: StoredPushSubscription | null): boolean {
  const id = loadIdentity(home);
  if (!id.devices.some((d) => d.id === deviceId)) return false;
  const devices = id.devices.map((d) => {
    if (d.id !== deviceId) return d;
    const { push: _old, ...rest } = d;
    return push ? { ...rest, push } : rest;
  });
  saveIdentity(home, { ...id, devices });
  return true;
}
