import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SandboxMode } from '../../protocol/index.js';
import { PersistedDecisions, type AuditEntry, type AuditRejects } from '../audit-log.js';
import type { AuditStore } from '../audit-store.js';
import type { RedisConnection } from './connection.js';
import type { RedisKeys } from './keys.js';
import { runScript } from './scripts.js';
import { StreamTail } from './stream-tail.js';

const MAC = /,"mac":"([0-9a-f]{64})"\}$/;
const CATCH_UP_COUNT = 1000;

export interface RedisAuditOptions {
  /**
   * The fleet's shared HMAC key (32 bytes or more; the store derives it from the fleet secret):
   * every line carries a MAC under it, and a person's "always" whose MAC is missing or wrong, or
   * that is older than a later signed decision for the same call, never allows anything (a
   * "never" is honoured whatever its MAC), as in the file audit log. Without it (tests only)
   * lines are not signed.
   */
  macKey?: Buffer;
  onRejected?: (r: AuditRejects) => void;
  /** A decision Redis did not take (it is retried when Redis is back; this says so once per streak). */
  onError?: (err: Error) => void;
  /** How long `lookupAsync` waits for Redis before it answers from memory (default 5 s). */
  readTimeoutMs?: number;
}

/** A person's persisted decision in a line: the call it decides and when (undefined for anything else). */
function decisionOf(line: string): { call: string; ts: string; decision: 'always' | 'never' } | undefined {
  let e: unknown;
  try {
    e = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof e !== 'object' || e === null) return undefined;
  const { ts, workspace, sandbox, tool, key, decision, by } = e as Record<string, unknown>;
  if (by !== 'person' || (decision !== 'always' && decision !== 'never')) return undefined;
  if (typeof ts !== 'string' || typeof workspace !== 'string' || typeof tool !== 'string' || typeof key !== 'string') return undefined;
  return { call: JSON.stringify([workspace, typeof sandbox === 'string' ? sandbox : '', tool.toLowerCase(), key]), ts, decision };
}

/** Stream ids `ms-seq` in order. */
function idAfter(a: string, b: string): boolean {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am > bm || (am === bm && as > bs);
}

/**
 * The audit log of permission decisions, shared by every instance of the fleet: each decision
 * is an entry of one stream, and a person's "always"/"never" also goes (in the same script)
 * into a hash every instance loads at start, keyed like the file log's persisted decisions, the
 * latest one winning. An instance then follows the stream (XREAD BLOCK on a connection of its
 * own), so a decision made on one instance decides identical requests on all of them.
 *
 * Same surface as the file AuditLog: `lookup` answers synchronously from memory (what has
 * arrived so far); `lookupAsync` first reads what the stream holds beyond it.
 */
export class RedisAuditLog implements AuditStore {
  private readonly persisted = new PersistedDecisions();
  /** Per call (workspace, sandbox, tool, key): the time of the newest signed decision applied. */
  private readonly newest = new Map<string, string>();
  /** The stream is applied up to this entry. */
  private lastId = '0-0';
  private preparing: Promise<void> | undefined;
  private catching: Promise<void> | undefined;
  private tail: StreamTail | undefined;
  private closed = false;
  private failing = false;
  /** Decisions sent and not yet taken by Redis. */
  private readonly sending = new Set<Promise<void>>();

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly opts: RedisAuditOptions = {},
  ) {
    if (opts.macKey && opts.macKey.length < 32) throw new Error('the audit MAC key must be 32 bytes or more');
  }

  private mac(body: string): string {
    return createHmac('sha256', this.opts.macKey!).update(body).digest('hex');
  }

  private verified(line: string): boolean {
    if (!this.opts.macKey) return true;
    const m = MAC.exec(line);
    if (!m) return false;
    const want = Buffer.from(this.mac(line.slice(0, m.index) + '}'), 'hex');
    return timingSafeEqual(want, Buffer.from(m[1]!, 'hex'));
  }

  /**
   * Applies decision lines in log order and reports the ones rejected: an "always" whose MAC is
   * missing or wrong, and a signed "always" older than the newest signed decision already applied
   * for the same call (a genuine line copied back into the stream after the person changed
   * their mind: a replay, which would otherwise win as the latest).
   */
  private apply(lines: Iterable<string>): void {
    const kept: string[] = [];
    let replayed = 0;
    let firstReplay = '';
    for (const line of lines) {
      const d = this.opts.macKey ? decisionOf(line) : undefined;
      if (d && this.verified(line)) {
        const newest = this.newest.get(d.call);
        if (newest !== undefined && d.ts < newest && d.decision === 'always') {
          replayed++;
          firstReplay ||= line.slice(0, 200);
          continue;
        }
        if (newest === undefined || d.ts > newest) this.newest.set(d.call, d.ts);
      }
      kept.push(line);
    }
    const { rejected, sample } = this.persisted.apply(kept, (line) => this.verified(line));
    if (rejected + replayed > 0) this.opts.onRejected?.({ file: `${this.conn.url.redacted} ${this.keys.audit}`, lines: rejected + replayed, sample: sample || firstReplay });
  }

  private applyEntries(entries: [string, string[]][]): void {
    const lines: string[] = [];
    for (const [id, fields] of entries) {
      if (!idAfter(id, this.lastId)) continue;
      this.lastId = id;
      if (fields[0] === 'e' && fields[1] !== undefined) lines.push(fields[1]);
    }
    this.apply(lines);
  }

  /** Loads every persisted decision (one hash) and starts following the stream from that point. */
  prepare(): Promise<void> {
    return (this.preparing ??= (async () => {
      const r = await this.conn.client.multi().hgetall(this.keys.auditPersisted).xrevrange(this.keys.audit, '+', '-', 'COUNT', 1).exec();
      const all = (r?.[0]?.[1] ?? {}) as Record<string, string>;
      const top = (r?.[1]?.[1] ?? []) as [string, string[]][];
      // One line per (call, sandbox): applied oldest first, so a later "never" under one sandbox wins over an older "always" under another.
      this.apply(Object.values(all).sort((a, b) => lineTs(a).localeCompare(lineTs(b))));
      if (top[0] && idAfter(top[0][0], this.lastId)) this.lastId = top[0][0];
      if (this.closed) return;
      this.tail = await StreamTail.start(this.conn, this.keys.audit, this.lastId, (entries) => this.applyEntries(entries), 'ferret-audit-tail');
      if (this.closed) await this.tail.stop();
    })().catch((err: unknown) => {
      this.preparing = undefined; // the next lookup tries again
      throw err;
    }));
  }

  /** Reads what the stream holds beyond what was applied (one at a time; callers share it). */
  private catchUp(): Promise<void> {
    return (this.catching ??= (async () => {
      try {
        for (;;) {
          const entries = (await this.conn.client.xrange(this.keys.audit, `(${this.lastId}`, '+', 'COUNT', CATCH_UP_COUNT)) as [string, string[]][];
          this.applyEntries(entries);
          if (entries.length < CATCH_UP_COUNT) return;
        }
      } finally {
        this.catching = undefined;
      }
    })());
  }

  /** The persisted decision for this call as far as this instance knows now (the stream's newest entries may still be on their way). */
  lookup(workspace: string, tool: string, key: string, sandbox: SandboxMode): 'always' | 'never' | undefined {
    if (!this.preparing) this.prepare().catch(() => undefined);
    return this.persisted.get(workspace, tool, key, sandbox);
  }

  /**
   * The same after reading everything the fleet has written so far. Redis away (or slow) for
   * longer than the read timeout: the answer from memory, as `lookup` (a decision is never held up
   * for good; the policy asks when nothing is known).
   */
  async lookupAsync(workspace: string, tool: string, key: string, sandbox: SandboxMode): Promise<'always' | 'never' | undefined> {
    await this.conn
      .timed(this.opts.readTimeoutMs ?? 5000, 'reading the audit log', async () => {
        await this.prepare();
        await this.catchUp();
      })
      .catch(() => undefined);
    return this.persisted.get(workspace, tool, key, sandbox);
  }

  /** Records a decision (sent at once; Redis being away delays it, never drops it). This instance sees its own decision at once. */
  append(entry: AuditEntry): void {
    const body = JSON.stringify(entry);
    const line = this.opts.macKey ? `${body.slice(0, -1)},"mac":"${this.mac(body)}"}` : body;
    const persisted = entry.by === 'person' && (entry.decision === 'always' || entry.decision === 'never');
    const mapKey = persisted ? PersistedDecisions.key(entry.workspace, entry.tool, entry.key, entry.sandbox) : '';
    if (persisted) this.persisted.set(entry, entry.decision as 'always' | 'never');
    let done!: () => void;
    const sent = new Promise<void>((r) => (done = r));
    this.sending.add(sent);
    void sent.then(() => this.sending.delete(sent));
    const send = (delay: number): void => {
      runScript(this.conn.client, 'appendAudit', [this.keys.audit, this.keys.auditPersisted], [line, mapKey]).then(
        () => {
          this.failing = false;
          done();
        },
        (err: unknown) => {
          if (this.closed) return done();
          if (!this.failing) this.opts.onError?.(err as Error);
          this.failing = true;
          const t = setTimeout(() => send(Math.min(delay * 2, 5000)), delay);
          t.unref();
        },
      );
    };
    send(100);
  }

  /** Waits until Redis has every decision sent so far (the store's close bounds the wait). */
  async flush(): Promise<void> {
    await Promise.all([...this.sending]);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.tail?.stop();
  }
}

/** A decision line's timestamp (ISO, so it sorts as text); '' for a line without one. */
function lineTs(line: string): string {
  return /"ts":"([^"]*)"/.exec(line)?.[1] ?? '';
}
