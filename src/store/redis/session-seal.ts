import { createHash, createHmac, timingSafeEqual, type Hash } from 'node:crypto';
import type { FleetTrust } from './fleet-trust.js';

/*
 * A session's log and records in Redis, signed with the fleet secret (docs/fleet.md#trust).
 * Whatever a server loads a session from (its stream, snapshot, checkpoints, summary) is state
 * it acts on: a forged `approval_changed` would run commands without asking. So every stream
 * entry carries a MAC bound to the session id and its seq (an entry cannot be moved to another
 * session or position), and every record a MAC bound to the session id and its kind. What fails
 * is dropped and reported, never parsed. Deleting entries from a log's end cannot be told from a
 * log that ended there (no trusted counter): docs/fleet.md says what that allows.
 */

/** The length of a MAC as stored: HMAC-SHA256 in base64url. */
export const MAC_CHARS = 43;

type RecordKind = 'snapshot' | 'checkpoint' | 'session summary';

function sample(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

function same(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** Signs and checks one session's stream entries and records (one per log, reader or tail). */
export class SessionSeal {
  constructor(
    private readonly trust: FleetTrust,
    readonly sessionId: string,
    /** The session's stream key (where a dropped entry is reported as found). */
    private readonly where: string,
  ) {}

  /** The MAC of the entry at `seq` holding `line` (an event's JSON). */
  mac(seq: number, line: string): string {
    return createHmac('sha256', this.trust.logKey).update(`ferret-log-v1\n${this.sessionId}\n${seq}\n`).update(line).digest('base64url');
  }

  /** The event line of a stream entry (`<seq>-0`, fields `e <line> m <mac>`), or why it is not one a server of this fleet wrote there. */
  check(seq: number, fields: readonly string[]): string | { why: string } {
    const line = fields[0] === 'e' ? fields[1] : undefined;
    const mac = fields[2] === 'm' ? fields[3] : undefined;
    if (line === undefined || mac === undefined || fields.length !== 4) return { why: 'not an entry a server of this fleet wrote (no MAC)' };
    if (!Number.isSafeInteger(seq) || seq < 1) return { why: 'not at a seq of this log' };
    if (!same(this.mac(seq, line), mac)) return { why: `its MAC does not match (not signed with this fleet secret for seq ${seq} of this session)` };
    return line;
  }

  /**
   * The event line of a stream entry if a server of this fleet wrote it at that seq of this
   * session; else undefined, reported as dropped.
   */
  open(seq: number, fields: readonly string[]): string | undefined {
    const r = this.check(seq, fields);
    return typeof r === 'string' ? r : this.drop(seq, r.why, fields[1] ?? fields.join(' '));
  }

  /** Reports an entry that is not read (a gap before it, or it failed its check). */
  drop(seq: number, why: string, line?: string): undefined {
    const s = sample(line);
    this.trust.dropped({ what: 'log entry', why, where: `${this.where} ${Number.isFinite(seq) ? seq : '?'}`, ...(s !== undefined ? { sample: s } : {}) });
    return undefined;
  }

  private recordMac(kind: RecordKind, text: string): string {
    return createHmac('sha256', this.trust.recordKey).update(`ferret-record-v1\n${kind}\n${this.sessionId}\n`).update(text).digest('base64url');
  }

  /** A record as stored: `<mac> <text>`. */
  sealRecord(kind: RecordKind, text: string): string {
    return `${this.recordMac(kind, text)} ${text}`;
  }

  /** The text of a stored record if a server of this fleet wrote it for this session; else undefined, reported as dropped at `where`. */
  openRecord(kind: RecordKind, stored: string, where: string): string | undefined {
    const mac = stored.slice(0, MAC_CHARS);
    const text = stored.slice(MAC_CHARS + 1);
    if (stored.charAt(MAC_CHARS) === ' ' && same(this.recordMac(kind, text), mac)) return text;
    const s = sample(stored);
    this.trust.dropped({ what: kind, why: 'not signed with this fleet secret for this session: ignored', where, ...(s !== undefined ? { sample: s } : {}) });
    return undefined;
  }

  /** Reports a record whose signature held but whose content does not (a snapshot's items that are not the ones it was written with). */
  dropRecord(kind: RecordKind, why: string, where: string): void {
    this.trust.dropped({ what: kind, why, where });
  }
}

/** The digest of a snapshot's items, in order (its header carries it, under the header's MAC). */
export class ItemsDigest {
  private readonly h: Hash = createHash('sha256');
  add(itemJson: string): void {
    this.h.update(itemJson).update('\n');
  }
  hex(): string {
    return this.h.digest('hex');
  }
}
