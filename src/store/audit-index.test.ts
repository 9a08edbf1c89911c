import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, type AuditEntry } from './audit-log.js';
import { auditEntry, auditFiles } from './audit-test-kit.js';

// A shared audit.jsonl grows by one line per decision; a new process must not read it whole.

const fresh = auditFiles('ferret-audit-index-');
/** Most lines here are the classifier's allows, the bulk a real log grows by. */
const entry = (over: Partial<AuditEntry> = {}): AuditEntry => auditEntry({ decision: 'allow', by: 'classifier', ...over });
const look = (file: string, key: string) => new AuditLog(file).lookup('/ws', 'bash', key, 'workspace-write');

describe('the audit log index', () => {
  it('a new process reads the index and the log after its last mark, not the log before it', async () => {
    const file = fresh();
    const a = new AuditLog(file);
    a.append(entry({ key: 'npm test', decision: 'always', by: 'person' }));
    a.flush();
    for (let i = 0; i < 3000; i++) a.append(entry({ key: `cat f${i}` })); // ~400 KB of policy decisions
    a.flush();
    a.append(entry({ key: 'rm -rf build', decision: 'never', by: 'person' }));
    a.flush();
    expect(a.lookup('/ws', 'bash', 'npm test', 'workspace-write')).toBe('always'); // scans, writes the index
    const index = readFileSync(join(file, '..', 'audit.index.jsonl'), 'utf8');
    expect(index).toContain('"upTo"');
    // Wreck everything before the mark, keeping its length: a process that reads the index never looks there.
    const text = readFileSync(file, 'utf8');
    const upTo = Math.max(...index.split('\n').filter((l) => l.includes('"upTo"')).map((l) => JSON.parse(l).upTo as number));
    writeFileSync(file, 'x'.repeat(upTo - 1) + '\n' + text.slice(upTo));
    expect(look(file, 'npm test')).toBe('always');
    expect(look(file, 'rm -rf build')).toBe('never');
    // What is appended after the mark is still read, also an unsigned "never" written by hand.
    appendFileSync(file, `${JSON.stringify(entry({ key: 'make deploy', decision: 'never', by: 'person' }))}\n`);
    expect(look(file, 'make deploy')).toBe('never');
    // prepare() (the idle warm-up) does the reading ahead; lookups then agree.
    const c = new AuditLog(file);
    await c.prepare();
    expect(c.lookup('/ws', 'bash', 'npm test', 'workspace-write')).toBe('always');
    expect(c.lookup('/ws', 'bash', 'make deploy', 'workspace-write')).toBe('never');
  });

  it("a lookup in the middle of prepare() (the warm-up reads in chunks that yield) loses no later decision", async () => {
    for (let round = 0; round < 6; round++) {
      const file = fresh();
      const w = new AuditLog(file);
      for (let i = 0; i < 30_000; i++) w.append(entry({ key: `cat f${i}` })); // ~4 MB: several chunks
      w.flush();
      const r = new AuditLog(file);
      const preparing = r.prepare();
      for (let i = 0; i < round * 3; i++) await new Promise((done) => setImmediate(done));
      expect(r.lookup('/ws', 'bash', 'npm test', 'workspace-write')).toBeUndefined(); // reads to the end, synchronously
      await preparing;
      // Then the log grows by more than a chunk, with a person's "never" first.
      w.append(entry({ key: 'rm -rf /srv', decision: 'never', by: 'person' }));
      for (let i = 0; i < 12_000; i++) w.append(entry({ key: `ls d${i}` }));
      w.flush();
      expect(r.lookup('/ws', 'bash', 'rm -rf /srv', 'workspace-write')).toBe('never');
    }
  });

  it('the last decision for a key wins, in log order, however the index was written', () => {
    const file = fresh();
    const a = new AuditLog(file);
    a.append(entry({ key: 'git push', decision: 'always', by: 'person' }));
    a.flush();
    for (let i = 0; i < 2500; i++) a.append(entry({ key: `cat f${i}` }));
    a.flush();
    a.lookup('/ws', 'bash', 'x', 'workspace-write'); // index with a mark after the "always"
    a.append(entry({ key: 'git push', decision: 'never', by: 'person' }));
    a.flush();
    for (let i = 0; i < 2500; i++) a.append(entry({ key: `cat g${i}` }));
    a.flush();
    expect(a.lookup('/ws', 'bash', 'git push', 'workspace-write')).toBe('never');
    expect(look(file, 'git push')).toBe('never');
  });

  it('a forged mark (no valid mac) is ignored: the log before it is still read', () => {
    const file = fresh();
    const a = new AuditLog(file);
    a.append(entry({ key: 'rm -rf /tmp/x', decision: 'never', by: 'person' }));
    a.flush();
    appendFileSync(join(file, '..', 'audit.index.jsonl'), `${JSON.stringify({ upTo: 10_000_000 })}\n`);
    expect(look(file, 'rm -rf /tmp/x')).toBe('never');
  });

  // A log deleted (or replaced, or cut short) is another log: nothing its index said decides anything.
  const withIndex = (file: string) => {
    const a = new AuditLog(file);
    a.append(entry({ key: 'git push', decision: 'always', by: 'person' }));
    for (let i = 0; i < 3000; i++) a.append(entry({ key: `cat f${i}` }));
    a.flush();
    expect(a.lookup('/ws', 'bash', 'git push', 'workspace-write')).toBe('always'); // writes the index with a mark
    expect(readFileSync(join(file, '..', 'audit.index.jsonl'), 'utf8')).toContain('"upTo"');
    return a;
  };

  it('a deleted log: its old "always" is gone in a new process, and a new "never" there holds', () => {
    const file = fresh();
    withIndex(file);
    rmSync(file);
    expect(look(file, 'git push')).toBeUndefined();
    const b = new AuditLog(file);
    b.append(entry({ key: 'npm publish', decision: 'never', by: 'person' }));
    b.flush();
    expect(b.lookup('/ws', 'bash', 'npm publish', 'workspace-write')).toBe('never');
    expect(look(file, 'npm publish')).toBe('never');
    expect(look(file, 'git push')).toBeUndefined();
  });

  it('a log deleted or cut short under a running process: it forgets what the log decided and reads the new one', () => {
    const file = fresh();
    const a = withIndex(file);
    rmSync(file);
    const b = new AuditLog(file);
    b.append(entry({ key: 'npm publish', decision: 'never', by: 'person' }));
    b.flush();
    expect(a.lookup('/ws', 'bash', 'git push', 'workspace-write')).toBeUndefined();
    expect(a.lookup('/ws', 'bash', 'npm publish', 'workspace-write')).toBe('never');
    // Cut short in place (same file, shorter than what was read): read again from the start.
    const c = withIndex(fresh());
    writeFileSync(c.path, '');
    expect(c.lookup('/ws', 'bash', 'git push', 'workspace-write')).toBeUndefined();
    expect(look(c.path, 'git push')).toBeUndefined();
  });
});
