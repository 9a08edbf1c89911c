// Shared by the audit log's tests (not part of the product): fresh audit files in a temp folder,
// and entries to write in them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { AuditEntry } from './audit-log.js';

/** Returns `fresh`: each call names a new audit.jsonl (not yet written) in a temp folder removed after the test file. */
export function auditFiles(prefix: string): () => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return () => join(dir, `a${n++}`, 'audit.jsonl');
}

/** A decision on bash `ls` in /ws at a fixed time; `over` sets what a test is about (the decision and who made it, at least). */
export const auditEntry = (over: Partial<AuditEntry> & Pick<AuditEntry, 'decision' | 'by'>): AuditEntry => ({
  ts: '2026-01-01T00:00:00.000Z',
  sessionId: 's1',
  workspace: '/ws',
  sandbox: 'workspace-write',
  tool: 'bash',
  key: 'ls',
  ...over,
});
