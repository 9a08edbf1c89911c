import type { SandboxMode } from '../protocol/index.js';
import type { AuditEntry } from './audit-log.js';

/**
 * The audit log of permission decisions as the core uses it: the file log (audit-log.ts, the
 * default) and the fleet's Redis log (redis/audit-log.ts) both implement it.
 */
export interface AuditStore {
  /** Reads what the log holds now in the background (the idle warm-up), so the first lookup has little left. */
  prepare(): Promise<void>;
  /** A person's persisted "always"/"never" for this call, as far as this process knows now. */
  lookup(workspace: string, tool: string, key: string, sandbox: SandboxMode): 'always' | 'never' | undefined;
  /** The same after reading what other instances wrote so far (a shared log); the core prefers it when present. */
  lookupAsync?(workspace: string, tool: string, key: string, sandbox: SandboxMode): Promise<'always' | 'never' | undefined>;
  /** Records one decision (written in the background; a failure is reported, never thrown at the call). */
  append(entry: AuditEntry): void;
  /** Writes what is queued (at shutdown). */
  flush(): void | Promise<void>;
}
