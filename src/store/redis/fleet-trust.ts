import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/*
 * The fleet's trust boundary. Redis is shared storage, not a trusted party: whatever a server
 * acts on from it (a message on the command bus, the owner a session's lease names, a remembered
 * "always") must carry a MAC under the secret every server of the fleet holds and Redis never
 * sees. Separate keys are derived for each use, so a MAC made for one can never pass for another.
 */

/** The shortest secret accepted (bytes, UTF-8): `openssl rand -hex 32` gives 64. */
export const MIN_SECRET_BYTES = 32;
/** A bus message older (or newer: clocks drift) than this is dropped. */
export const BUS_WINDOW_MS = 60_000;
/** A bus message larger than this is dropped before it is parsed (a prompt is far smaller). */
const MAX_BUS_BYTES = 32 * 1024 * 1024;
/** Nonces remembered for replay protection; more than this inside one window is a flood: the oldest go. */
const MAX_SEEN = 200_000;

/** What was dropped, and why: the server logs it (pino, stderr). */
export interface Dropped {
  /** What it was: a bus message, a lease record, an audit line. */
  what: 'bus message' | 'lease record' | 'audit line' | 'log entry' | 'snapshot' | 'checkpoint' | 'session summary';
  why: string;
  /** Where it was found (a channel, a key). */
  where: string;
  /** The first bytes, for the person reading the log. */
  sample?: string;
}

/** Instance ids go into lease records (`<instance>|<seal>#<epoch>`) and channel names: no separators, no spaces. */
export const INSTANCE_ID = /^[A-Za-z0-9._:@-]{1,200}$/;

const Envelope = z.object({ v: z.literal(1), p: z.string(), m: z.string().regex(/^[0-9a-f]{64}$/) }).strict();
const Header = z.object({ ts: z.number().int(), n: z.string().regex(/^[0-9a-f]{32}$/) }).passthrough();

function sample(raw: unknown): string {
  const s = typeof raw === 'string' ? raw : String(raw);
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

/** Why a fleet secret cannot be used (undefined: it can). */
export function fleetSecretProblem(secret: string): string | undefined {
  const n = Buffer.byteLength(secret, 'utf8');
  if (n < MIN_SECRET_BYTES) return `the fleet secret is ${n} bytes; it must be ${MIN_SECRET_BYTES} or more (e.g. \`openssl rand -hex 32\`)`;
  return undefined;
}

export interface FleetTrustOptions {
  /** Told of everything dropped (the CLI logs it; tests collect it). */
  onDropped?: (d: Dropped) => void;
  /** The clock (tests move it). */
  now?: () => number;
}

/**
 * Signs and checks what fleet servers exchange through Redis. One per server, built from the
 * shared secret: bus messages (sealed with a timestamp and a nonce, bound to the channel they go
 * on, opened at most once and only within BUS_WINDOW_MS), lease records (the owner's name bound
 * to the session), and the keys of the audit log and of sessions' logs and records (session-seal.ts).
 */
export class FleetTrust {
  private readonly busKey: Buffer;
  private readonly leaseKey: Buffer;
  /** The HMAC key of the fleet's audit lines (RedisAuditLog). */
  readonly auditKey: Buffer;
  /** The HMAC key of session log entries (SessionSeal). */
  readonly logKey: Buffer;
  /** The HMAC key of what a server loads a session from besides its log: snapshots, checkpoints, summaries (SessionSeal). */
  readonly recordKey: Buffer;
  /** Nonces of bus messages opened, with when each may be forgotten (insertion order = expiry order). */
  private readonly seen = new Map<string, number>();
  private readonly now: () => number;

  constructor(
    secret: string,
    private readonly opts: FleetTrustOptions = {},
  ) {
    const problem = fleetSecretProblem(secret);
    if (problem) throw new Error(problem);
    const derive = (use: string) => Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'ferret-fleet-v1', use, 32));
    this.busKey = derive('command bus');
    this.leaseKey = derive('lease record');
    this.auditKey = derive('audit line');
    this.logKey = derive('session log');
    this.recordKey = derive('session record');
    this.now = opts.now ?? Date.now;
  }

  /** Reports a drop; a reporter's own failure never reaches the caller. */
  dropped(d: Dropped): void {
    try {
      this.opts.onDropped?.(d);
    } catch {
      /* the reporter's problem */
    }
  }

  // ---- the command bus ----------------------------------------------------------------------

  private busMac(channel: string, payload: string): string {
    return createHmac('sha256', this.busKey).update(`ferret-bus-v1\n${channel}\n`).update(payload).digest('hex');
  }

  /** A message for `channel`: the body with a timestamp and a fresh nonce, and its MAC. */
  seal(channel: string, body: Record<string, unknown>): string {
    const p = JSON.stringify({ ...body, ts: this.now(), n: randomBytes(16).toString('hex') });
    return JSON.stringify({ v: 1, p, m: this.busMac(channel, p) });
  }

  /**
   * The body of a message received on `channel`, or undefined (dropped and reported): not a
   * sealed message, a MAC that does not match (forged, altered, another secret, sent for another
   * channel), outside the time window, or a nonce already seen (a replay).
   */
  open(channel: string, raw: unknown): Record<string, unknown> | undefined {
    const drop = (why: string): undefined => {
      this.dropped({ what: 'bus message', why, where: channel, sample: sample(raw) });
      return undefined;
    };
    if (typeof raw !== 'string') return drop('not text');
    if (raw.length > MAX_BUS_BYTES) return drop(`larger than ${MAX_BUS_BYTES} bytes`);
    let outer: unknown;
    try {
      outer = JSON.parse(raw);
    } catch {
      return drop('not JSON');
    }
    const env = Envelope.safeParse(outer);
    if (!env.success) return drop('not a sealed fleet message');
    const { p, m } = env.data;
    if (!timingSafeEqual(Buffer.from(this.busMac(channel, p), 'hex'), Buffer.from(m, 'hex'))) return drop('its MAC does not match (not signed with this fleet secret)');
    let inner: unknown;
    try {
      inner = JSON.parse(p);
    } catch {
      return drop('signed, but its body is not JSON');
    }
    const head = Header.safeParse(inner);
    if (!head.success) return drop('signed, but its body has no timestamp and nonce');
    const now = this.now();
    const age = Math.round((now - head.data.ts) / 1000);
    if (Math.abs(now - head.data.ts) > BUS_WINDOW_MS) return drop(`stale: sent ${Math.abs(age)} s ${age >= 0 ? 'ago' : 'in the future'} (the window is ±${BUS_WINDOW_MS / 1000} s)`);
    this.forget(now);
    if (this.seen.has(head.data.n)) return drop('a replay (its nonce was seen already)');
    this.seen.set(head.data.n, head.data.ts + BUS_WINDOW_MS);
    return head.data;
  }

  /** Forgets nonces whose messages are outside the window anyway (a replay of those is stale). */
  private forget(now: number): void {
    for (const [n, until] of this.seen) {
      if (until >= now && this.seen.size <= MAX_SEEN) break;
      this.seen.delete(n);
    }
  }

  // ---- lease records ------------------------------------------------------------------------

  private leaseSeal(sessionId: string, instance: string): string {
    return createHmac('sha256', this.leaseKey).update(`ferret-lease-v1\n${sessionId}\n${instance}`).digest('base64url');
  }

  /** What a server puts in a session's lease (the script adds `#<epoch>`): its name, sealed for this session. */
  claim(sessionId: string, instance: string): string {
    return `${instance}|${this.leaseSeal(sessionId, instance)}`;
  }

  /**
   * The instance a lease token (`<instance>|<seal>#<epoch>`) names, or undefined (dropped and
   * reported) when the record was not written by a server of this fleet for this session.
   */
  ownerOf(sessionId: string, token: string, where: string): string | undefined {
    const hash = token.lastIndexOf('#');
    const head = hash < 0 ? token : token.slice(0, hash);
    const bar = head.lastIndexOf('|');
    const instance = bar < 0 ? '' : head.slice(0, bar);
    const seal = bar < 0 ? '' : head.slice(bar + 1);
    const want = Buffer.from(this.leaseSeal(sessionId, instance));
    const got = Buffer.from(seal);
    if (INSTANCE_ID.test(instance) && got.length === want.length && timingSafeEqual(want, got)) return instance;
    this.dropped({ what: 'lease record', why: 'not signed with this fleet secret for this session: its owner is ignored', where, sample: sample(token) });
    return undefined;
  }
}
