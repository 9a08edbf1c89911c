import { appendFileSync, mkdirSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { SandboxModeSchema, type SandboxMode } from '../protocol/index.js';

export const AuditEntrySchema = z.object({
  ts: z.string(),
  sessionId: z.string(),
  workspace: z.string(),
  /** The sandbox the decision was made under; a remembered "always" holds only under the same one. */
  sandbox: SandboxModeSchema.optional(),
  tool: z.string(),
  key: z.string(),
  decision: z.enum(['allow', 'deny', 'always', 'never']),
  by: z.enum(['person', 'rule', 'preset', 'persisted', 'classifier', 'sandbox']),
  who: z.string().optional(),
  rule: z.string().optional(),
  reason: z.string().optional(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/**
 * Every permission decision, appended as JSONL; "always"/"never" entries made by a person
 * decide later identical requests. Other processes may append too, so new bytes are read
 * before each lookup.
 */
export class AuditLog {
  private readonly persisted = new Map<string, 'always' | 'never'>();
  private readBytes = 0;

  constructor(readonly path: string) {}

  /** Entries written before the sandbox was recorded were made under the default, workspace-write. */
  private static mapKey(workspace: string, tool: string, key: string, sandbox: SandboxMode = 'workspace-write'): string {
    return JSON.stringify([workspace, sandbox, tool.toLowerCase(), key]);
  }

  private catchUp(): void {
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return;
    }
    if (size <= this.readBytes) return;
    const fd = openSync(this.path, 'r');
    const buf = Buffer.alloc(size - this.readBytes);
    try {
      readSync(fd, buf, 0, buf.length, this.readBytes);
    } finally {
      closeSync(fd);
    }
    const text = buf.toString('utf8');
    const end = text.lastIndexOf('\n') + 1; // leave a half-written line for next time
    this.readBytes += Buffer.byteLength(text.slice(0, end));
    for (const line of text.slice(0, end).split('\n')) {
      if (!line) continue;
      try {
        const e = AuditEntrySchema.parse(JSON.parse(line));
        if (e.by === 'person' && (e.decision === 'always' || e.decision === 'never')) {
          this.persisted.set(AuditLog.mapKey(e.workspace, e.tool, e.key, e.sandbox), e.decision);
        }
      } catch {
        /* a foreign or damaged line never blocks decisions */
      }
    }
  }

  lookup(workspace: string, tool: string, key: string, sandbox: SandboxMode): 'always' | 'never' | undefined {
    this.catchUp();
    return this.persisted.get(AuditLog.mapKey(workspace, tool, key, sandbox));
  }

  append(entry: AuditEntry): void {
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, JSON.stringify(entry) + '\n');
  }
}
