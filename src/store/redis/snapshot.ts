import { loadedSnapshot } from '../loaded-snapshot.js';
import type { LoadedSnapshot, StateSnapshot } from '../session-store.js';
import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';
import type { SessionLease } from './lease.js';
import { runScript } from './scripts.js';
import { ItemsDigest, type SessionSeal } from './session-seal.js';

/** 2: signed (`<mac> <header>`, the header holding its items' digest); an older one is not used (the log is folded again). */
const SNAPSHOT_VERSION = 2;
/** Bytes of items pushed (and read) at a time: a long history never becomes one big command. */
const ITEM_BATCH_BYTES = 256 * 1024;

interface SnapshotHeader {
  v: number;
  seq: number;
  at: number;
  /** The `ts` of the event at `seq`: a stream that lost that entry, or holds another one there, fails the check. */
  ts: number;
  folds: Record<string, unknown>;
  state: unknown;
  items: number;
  /** sha256 of the items' JSON, in order (ItemsDigest): the header's MAC covers the items through it. */
  digest: string;
}

function parseHeader(seal: SessionSeal, stored: string | null, where: string): SnapshotHeader | undefined {
  if (!stored) return undefined;
  const text = seal.openRecord('snapshot', stored, where);
  if (text === undefined) return undefined;
  try {
    const h = JSON.parse(text) as Partial<SnapshotHeader>;
    if (h.v !== SNAPSHOT_VERSION || !Number.isInteger(h.seq) || !Number.isInteger(h.at) || !Number.isInteger(h.items) || typeof h.ts !== 'number') return undefined;
    if (typeof h.folds !== 'object' || h.folds === null || h.state === undefined || typeof h.digest !== 'string') return undefined;
    return h as SnapshotHeader;
  } catch {
    return undefined;
  }
}

/** The `ts` of the entry at `seq` in the session's stream (undefined: no such entry). */
async function tsAt(conn: RedisConnection, key: string, seq: number): Promise<number | undefined> {
  const r = (await conn.client.xrange(key, String(seq), String(seq))) as [string, string[]][];
  const v = r[0]?.[1][1];
  if (v === undefined) return undefined;
  try {
    const ts = (JSON.parse(v) as { ts?: unknown }).ts;
    return typeof ts === 'number' ? ts : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps a snapshot: its items pushed into `snap:next` a batch at a time (each awaited), then
 * made current in one script that checks the lease (never after another instance took the
 * session). Resolves false when the lease was lost (nothing changed).
 */
export async function writeSnapshot(conn: RedisConnection, keys: RedisKeys, seal: SessionSeal, lease: SessionLease, snap: StateSnapshot): Promise<boolean> {
  const c = conn.client;
  const id = seal.sessionId;
  const digest = new ItemsDigest();
  const next = keys.snapshotNext(id);
  const ts = await tsAt(conn, keys.log(id), snap.seq);
  if (ts === undefined) throw new Error(`snapshot of session ${id}: the event at seq ${snap.seq} is not in the stream`);
  await c.del(next);
  let batch: string[] = [];
  let bytes = 0;
  for (const item of snap.items) {
    const s = JSON.stringify(item);
    digest.add(s);
    batch.push(s);
    bytes += s.length;
    if (bytes >= ITEM_BATCH_BYTES) {
      await c.rpush(next, ...batch);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length) await c.rpush(next, ...batch);
  const header: SnapshotHeader = { v: SNAPSHOT_VERSION, seq: snap.seq, at: snap.at, ts, folds: snap.folds, state: snap.state, items: snap.items.length, digest: digest.hex() };
  const f = lease.fence;
  const r = Number(
    await runScript(c, 'commitSnapshot', [f.keys[0], f.keys[1], keys.snapshot(id), keys.snapshotItems(id), next], [f.args[0], f.args[1], seal.sealRecord('snapshot', JSON.stringify(header)), snap.items.length]),
  );
  if (r === -1) throw new Error(`snapshot of session ${id}: its items were not all written`);
  if (r === 0) await c.del(next).catch(() => undefined);
  return r === 1;
}

/**
 * The current snapshot if a server of this fleet wrote it for this session and it still matches
 * the stream (its mark's event is there, the same one), with its items read on demand: items
 * that are not the ones its header was signed with fail the read (and are reported).
 */
export async function loadSnapshot(conn: RedisConnection, keys: RedisKeys, seal: SessionSeal): Promise<LoadedSnapshot | undefined> {
  const c = conn.client;
  const id = seal.sessionId;
  const h = parseHeader(seal, await c.get(keys.snapshot(id)), keys.snapshot(id));
  if (!h) return undefined;
  if (h.seq > 0 && (await tsAt(conn, keys.log(id), h.seq)) !== h.ts) return undefined;
  const itemsKey = keys.snapshotItems(id);
  if ((await c.llen(itemsKey)) !== h.items) return undefined;
  return loadedSnapshot(id, h, async () => {
    const out: string[] = [];
    const digest = new ItemsDigest();
    let count = 256;
    while (out.length < h.items) {
      const got = await c.lrange(itemsKey, out.length, out.length + count - 1);
      if (got.length === 0) break;
      let bytes = 0;
      for (const s of got) {
        bytes += s.length;
        digest.add(s);
      }
      out.push(...got);
      count = Math.max(16, Math.min(4096, Math.floor(ITEM_BATCH_BYTES / Math.max(1, bytes / got.length))));
    }
    if (out.length === h.items && digest.hex() !== h.digest) {
      seal.dropRecord('snapshot', 'its items are not the ones its header was signed with: not used', itemsKey);
      throw new Error(`snapshot of session ${id}: its items in redis fail the fleet secret's check`);
    }
    return out.map((s) => JSON.parse(s) as unknown);
  });
}
