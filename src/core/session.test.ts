import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createModelResolver } from '../providers/resolve.js';
import { buildRuleSet } from '../sandbox/rules.js';
import { AuditLog } from '../store/audit-log.js';
import { BUILTIN_TOOLS, ToolRegistry } from '../tools/registry.js';
import { SessionManager } from './session-manager.js';

const home = mkdtempSync(join(tmpdir(), 'ferret-session-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const deps = { home, resolver: createModelResolver(), tools: new ToolRegistry(BUILTIN_TOOLS), rules: buildRuleSet({}), audit: new AuditLog(join(home, 'audit.jsonl')), logger: pino({ level: 'silent' }), env: {}, maxSteps: 5 };
const defaults = { cwd: home, model: 'none', mode: 'code' as const, sandbox: 'workspace-write' as const, approval: 'auto' as const };

describe('session events: numbered, logged, replayable', () => {
  it('a subscriber replaying from any seq gets every later event once, even after a burst larger than the memory window in one tick', () => {
    const s = new SessionManager(deps, defaults).create();
    for (let i = 0; i < 12_000; i++) s.emit({ type: 'message_chunk', data: { turnId: 't', text: `c${i}` } });
    for (const after of [0, 5, 7_000, s.lastSeq - 1]) {
      const seen: number[] = [];
      const off = s.subscribe((e) => seen.push(e.seq), after);
      s.emit({ type: 'notice', data: { level: 'info', text: 'live' } });
      off();
      const expected = Array.from({ length: s.lastSeq - after }, (_, i) => after + 1 + i);
      expect(seen).toEqual(expected);
    }
  });

  it('a second manager (a new process) loads the session with its history and state', () => {
    const a = new SessionManager(deps, defaults);
    const s = a.create({ approval: 'suggest' });
    s.emit({ type: 'message', data: { turnId: 't', message: { role: 'user', text: 'hi' } } });
    s.setMode('plan');
    s.close();
    const loaded = new SessionManager(deps, defaults).get(s.id);
    expect(loaded.state).toMatchObject({ approval: 'suggest', mode: 'plan', history: [{ role: 'user', text: 'hi' }] });
    expect(loaded.lastSeq).toBe(s.lastSeq);
  });
});

describe('one writer per session', () => {
  it('a session open in another live process is refused; a lock left by a dead process is taken over', async () => {
    const { writeFileSync } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const a = new SessionManager(deps, defaults);
    const s = a.create();
    s.close();
    const lock = join(home, 'eventlog', `ferret-${s.id}`, 'lock');
    writeFileSync(lock, String(process.ppid)); // a live process that is not us
    expect(() => new SessionManager(deps, defaults).get(s.id)).toThrow(/open in another ferret process/);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(lock, dead);
    const loaded = new SessionManager(deps, defaults).get(s.id);
    expect(loaded.id).toBe(s.id);
    loaded.close();
  });
});
