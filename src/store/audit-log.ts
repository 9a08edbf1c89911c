import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { lazySchema, SandboxModeSchema, type SandboxMode } from '../protocol/index.js';
import { lazyRequire } from '../util/lazy-require.js';
import { AuditIndex } from './audit-index.js';

// node:crypto loads at the first decision, not at start-up.
const nodeCrypto = lazyRequire<typeof import('node:crypto')>('node:crypto');

export const AuditEntrySchema = lazySchema(() =>
  z.object({
    ts: z.string(),
    sessionId: z.string(),
    workspace: z.string(),
    /** The sandbox the decision was made under; a remembered "always" holds only under the same one, a "never" under every one. */
    sandbox: SandboxModeSchema.optional(),
    tool: z.string(),
    key: z.string(),
    decision: z.enum(['allow', 'deny', 'always', 'never']),
    by: z.enum(['person', 'rule', 'preset', 'persisted', 'classifier', 'sandbox']),
    who: z.string().optional(),
    rule: z.string().optional(),
    reason: z.string().optional(),
  }),
);
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** What the log found that it could not trust: lines whose integrity check failed, ignored. */
export interface AuditRejects {
  file: string;
  lines: number;
  /** The first of them, cut short, for the person reading the log. */
  sample: string;
}

const MAC = /,"mac":"([0-9a-f]{64})"\}$/;

/**
 * A person's persisted "always"/"never" by call, as the file log and the fleet's Redis log both
 * keep them: decision lines applied in log order, an "always" whose integrity check fails left out.
 *
 * An "always" holds only under the sandbox it was given under (what was safe to allow in the
 * sandbox may not be on the host). A "never" holds under every sandbox and preset: a refusal
 * given under workspace-write must still refuse under danger-full-access, where more is at stake.
 * A later "always" under one sandbox lifts an earlier "never" under that sandbox only.
 */
export class PersistedDecisions {
  /** Per (workspace, sandbox, tool, key): the latest decision and when (its order in the log). */
  private readonly byCall = new Map<string, { decision: 'always' | 'never'; seq: number }>();
  /** Per (workspace, tool, key): when the latest "never" was given, under whichever sandbox. */
  private readonly nevers = new Map<string, number>();
  private seq = 0;

  /** Entries written before the sandbox was recorded were made under the default, workspace-write. */
  static key(workspace: string, tool: string, key: string, sandbox: SandboxMode = 'workspace-write'): string {
    return JSON.stringify([workspace, sandbox, tool.toLowerCase(), key]);
  }

  private static anySandbox(workspace: string, tool: string, key: string): string {
    return JSON.stringify([workspace, tool.toLowerCase(), key]);
  }

  get(workspace: string, tool: string, key: string, sandbox: SandboxMode): 'always' | 'never' | undefined {
    const here = this.byCall.get(PersistedDecisions.key(workspace, tool, key, sandbox));
    const never = this.nevers.get(PersistedDecisions.anySandbox(workspace, tool, key));
    if (never !== undefined && (here === undefined || never > here.seq)) return 'never';
    return here?.decision;
  }

  /** Records one decision as the latest (`entry`: the call it is for). */
  set(entry: { workspace: string; tool: string; key: string; sandbox?: SandboxMode | undefined }, decision: 'always' | 'never'): void {
    const seq = ++this.seq;
    this.byCall.set(PersistedDecisions.key(entry.workspace, entry.tool, entry.key, entry.sandbox), { decision, seq });
    if (decision === 'never') this.nevers.set(PersistedDecisions.anySandbox(entry.workspace, entry.tool, entry.key), seq);
  }

  clear(): void {
    this.byCall.clear();
    this.nevers.clear();
  }

  /** Applies decision lines in log order; says how many were rejected (and the first of them). */
  apply(lines: Iterable<string>, verified: (line: string) => boolean): { rejected: number; sample: string } {
    let rejected = 0;
    let sample = '';
    for (const line of lines) {
      let e: AuditEntry;
      try {
        e = AuditEntrySchema.parse(JSON.parse(line));
      } catch {
        continue; // a foreign or damaged line never blocks decisions
      }
      if (e.by !== 'person' || (e.decision !== 'always' && e.decision !== 'never')) continue;
      if (e.decision === 'always' && !verified(line)) {
        rejected++;
        sample ||= line.slice(0, 200);
        continue;
      }
      this.set(e, e.decision);
    }
    return { rejected, sample };
  }
}

/**
 * Every permission decision, appended as JSONL; "always"/"never" entries made by a person
 * decide later identical requests. Other processes may append too, so new bytes are read
 * before each lookup.
 *
 * Each line carries an HMAC-SHA256 (`"mac"`, last field) under a key kept beside the log in
 * `audit.key` (0600, made on first use). A line whose MAC is missing or wrong (forged by a file
 * write, edited, or older than this check) never allows anything: its "always" is ignored and
 * reported once per batch through `onRejected`. A "never" is honoured whatever its MAC: it can
 * only refuse.
 */
export class AuditLog {
  private readonly persisted = new PersistedDecisions();
  private key: Buffer | undefined;
  /** Which lines of the log can decide a request, without reading the whole log per process (audit-index.ts). */
  private readonly index: AuditIndex;
  /** Lines appended this tick: written together, once per tick (a burst of tool calls makes one write). */
  private queue: string[] = [];
  private scheduled = false;
  private dirMade = false;

  constructor(
    readonly path: string,
    private readonly onRejected?: (r: AuditRejects) => void,
    private readonly onWriteError?: (err: Error) => void,
  ) {
    this.index = new AuditIndex(path, {
      sign: (body) => {
        try {
          return `${body.slice(0, -1)},"mac":"${this.mac(body)}"}`;
        } catch {
          return undefined; // no usable key: no index mark (the log is read as before)
        }
      },
      verify: (line) => this.verified(line),
    });
  }

  /** Reads what the log holds now in chunks that yield (the idle warm-up), so the first lookup has little left. */
  prepare(): Promise<void> {
    try {
      this.mac('{}'); // reads (or makes) the HMAC key and warms the HMAC code before the first decision
    } catch {
      // no usable key: the first write reports it
    }
    return this.index.prepare();
  }

  /** The HMAC key: read from audit.key, or made there (0600, exclusive create) on first use. */
  private macKey(): Buffer {
    if (this.key) return this.key;
    const file = join(dirname(this.path), 'audit.key');
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const k = readFileSync(file);
        if (k.length >= 32) return (this.key = k);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      try {
        const fd = openSync(file, 'wx', 0o600);
        try {
          writeSync(fd, nodeCrypto().randomBytes(32));
        } finally {
          closeSync(fd);
        }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process made it first
      }
    }
    throw new Error(`${file}: not a usable audit key (fewer than 32 bytes); remove it to make a new one`);
  }

  private mac(body: string): string {
    return nodeCrypto().createHmac('sha256', this.macKey()).update(body).digest('hex');
  }

  private verified(line: string): boolean {
    const m = MAC.exec(line);
    if (!m) return false;
    let want: Buffer;
    try {
      want = Buffer.from(this.mac(line.slice(0, m.index) + '}'), 'hex');
    } catch {
      return false; // no usable key (a read-only or damaged CHIMERA_HOME): nothing is trusted
    }
    return nodeCrypto().timingSafeEqual(want, Buffer.from(m[1]!, 'hex'));
  }

  private catchUp(): void {
    const { lines, reset } = this.index.newLines();
    // The log was deleted or replaced: what it decided is gone with it.
    if (reset) this.persisted.clear();
    const { rejected, sample } = this.persisted.apply(lines, (line) => this.verified(line));
    if (rejected > 0) this.onRejected?.({ file: this.path, lines: rejected, sample });
  }

  lookup(workspace: string, tool: string, key: string, sandbox: SandboxMode): 'always' | 'never' | undefined {
    // No flush first: only a person's answer can decide a lookup, and append() writes those at
    // once; what waits in the queue (policy decisions) goes out once per tick, so a thousand
    // concurrent calls make one write, not a write and a read-back each.
    this.catchUp();
    return this.persisted.get(workspace, tool, key, sandbox);
  }

  /** Queues one signed line; the queue is written at the end of the tick (a person's answer at once). */
  append(entry: AuditEntry): void {
    const body = JSON.stringify(entry);
    this.queue.push(`${body.slice(0, -1)},"mac":"${this.mac(body)}"}\n`);
    // A person's answer is rare and is what later requests rely on: on disk before anything else happens.
    if (entry.by === 'person') return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes what is queued, in one append. */
  flush(): void {
    this.scheduled = false;
    if (this.queue.length === 0) return;
    const text = this.queue.join('');
    this.queue = [];
    try {
      if (!this.dirMade) mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.dirMade = true;
      appendFileSync(this.path, text, { mode: 0o600 });
    } catch (err) {
      this.onWriteError?.(err as Error);
    }
  }
}
