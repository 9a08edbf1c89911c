// Family: ferret's state written by a tool. An "always" in audit.jsonl decides later requests
// without asking, so a line that did not come from AuditLog.append (a file write, an edit, a
// copy from another state root) must never allow anything. Forgeries are generated from a real
// signed line by every kind of tampering.
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog, type AuditEntry, type AuditRejects } from './audit-log.js';
import { auditEntry, auditFiles } from './audit-test-kit.js';

const newFile = auditFiles('ferret-audit-');
/** A person's "always": the line a forgery would most want to fake. */
const entry = (over: Partial<AuditEntry> = {}): AuditEntry => auditEntry({ decision: 'always', by: 'person', ...over });

function fresh(): { log: AuditLog; file: string; rejects: AuditRejects[] } {
  const file = newFile();
  const rejects: AuditRejects[] = [];
  return { log: new AuditLog(file, (r) => rejects.push(r)), file, rejects };
}

describe('the audit log signs what it writes and trusts nothing else', () => {
  it('a line it wrote decides later requests, in a new process too; key and log are owner-only', () => {
    const { log, file } = fresh();
    log.append(entry());
    log.flush();
    expect(log.lookup('/ws', 'bash', 'ls', 'workspace-write')).toBe('always');
    expect(new AuditLog(file).lookup('/ws', 'bash', 'ls', 'workspace-write')).toBe('always');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..', 'audit.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
  });

  // Every way to make an "always" for `rm -rf x` from a real signed line, or from nothing.
  const forgeries: [string, (signed: string) => string][] = [
    ['no mac at all', () => JSON.stringify(entry({ key: 'rm -rf x' }))],
    ['the key edited', (s) => s.replace('"key":"ls"', '"key":"rm -rf x"')],
    ['the key edited, spaces added', (s) => s.replace('"key":"ls"', '"key" : "rm -rf x"')],
    ['a field added', (s) => s.replace('"key":"ls"', '"key":"rm -rf x","extra":1')],
    ['a zero mac', () => JSON.stringify(entry({ key: 'rm -rf x' })).slice(0, -1) + `,"mac":"${'0'.repeat(64)}"}`],
    ['the mac of another line', (s) => JSON.stringify(entry({ key: 'rm -rf x' })).slice(0, -1) + s.slice(s.lastIndexOf(',"mac"'))],
    ['the mac moved first', (s) => `{"mac":"${/"mac":"([0-9a-f]+)"/.exec(s)![1]}",${JSON.stringify(entry({ key: 'rm -rf x' })).slice(1)}`],
    ['a duplicate key field after the mac', (s) => s.slice(0, -1) + ',"key":"rm -rf x"}'],
    ['an upper-case mac', (s) => s.replace('"key":"ls"', '"key":"rm -rf x"').replace(/"mac":"([0-9a-f]+)"/, (_m, h: string) => `"mac":"${h.toUpperCase()}"`)],
    ['signed under another key', () => {
      const other = fresh();
      other.log.append(entry({ key: 'rm -rf x' }));
      other.log.flush();
      return readFileSync(other.file, 'utf8').trim();
    }],
  ];
  it.each(forgeries)('%s is ignored and reported', (_name, forge) => {
    const { log, file, rejects } = fresh();
    log.append(entry());
    log.flush();
    const signed = readFileSync(file, 'utf8').trim();
    appendFileSync(file, `${forge(signed)}\n`);
    expect(log.lookup('/ws', 'bash', 'rm -rf x', 'workspace-write')).toBeUndefined();
    expect(log.lookup('/ws', 'bash', 'ls', 'workspace-write')).toBe('always');
    expect(rejects).toHaveLength(1);
    expect(rejects[0]).toMatchObject({ file, lines: 1 });
    log.lookup('/ws', 'bash', 'rm -rf x', 'workspace-write');
    expect(rejects).toHaveLength(1); // reported once, not on every lookup
  });

  it('a "never" holds under every sandbox; an "always" only under its own; the latest decision wins', () => {
    const { log, file } = fresh();
    log.append(entry({ key: 'npm publish', decision: 'never', sandbox: 'workspace-write' }));
    log.append(entry({ key: 'npm test', decision: 'always', sandbox: 'workspace-write' }));
    log.flush();
    for (const l of [log, new AuditLog(file)]) {
      for (const sb of ['read-only', 'workspace-write', 'danger-full-access'] as const) expect(l.lookup('/ws', 'bash', 'npm publish', sb)).toBe('never');
      expect(l.lookup('/ws', 'bash', 'npm test', 'danger-full-access')).toBeUndefined();
      expect(l.lookup('/ws', 'bash', 'npm publish', 'workspace-write')).toBe('never');
      expect(l.lookup('/other', 'bash', 'npm publish', 'danger-full-access')).toBeUndefined(); // another workspace
    }
    // An "always" given under danger-full-access before, a "never" under workspace-write after: refused on the host too.
    log.append(entry({ key: 'make deploy', decision: 'always', sandbox: 'danger-full-access' }));
    log.append(entry({ key: 'make deploy', decision: 'never', sandbox: 'workspace-write' }));
    log.flush();
    expect(log.lookup('/ws', 'bash', 'make deploy', 'danger-full-access')).toBe('never');
    expect(new AuditLog(file).lookup('/ws', 'bash', 'make deploy', 'danger-full-access')).toBe('never');
    // A later "always" lifts the "never" under its own sandbox only.
    log.append(entry({ key: 'make deploy', decision: 'always', sandbox: 'workspace-write' }));
    log.flush();
    expect(new AuditLog(file).lookup('/ws', 'bash', 'make deploy', 'workspace-write')).toBe('always');
    expect(new AuditLog(file).lookup('/ws', 'bash', 'make deploy', 'danger-full-access')).toBe('never');
  });

  it('an unsigned "never" is honoured: it can only refuse', () => {
    const { log, file } = fresh();
    log.append(entry());
    log.flush();
    appendFileSync(file, `${JSON.stringify(entry({ key: 'npm test', decision: 'never' }))}\n`);
    expect(log.lookup('/ws', 'bash', 'npm test', 'workspace-write')).toBe('never');
  });

  it('a key file that is not a key trusts nothing, and writing fails loudly', () => {
    const { log, file } = fresh();
    log.append(entry());
    log.flush();
    writeFileSync(join(file, '..', 'audit.key'), 'short');
    const rejects: AuditRejects[] = [];
    const again = new AuditLog(file, (r) => rejects.push(r));
    expect(again.lookup('/ws', 'bash', 'ls', 'workspace-write')).toBeUndefined();
    expect(rejects).toHaveLength(1);
    expect(() => again.append(entry())).toThrow(/audit key/);
  });
});
