import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RESUME_WITHIN_MS, sharedStorage, WindowSlot } from '../../../extensions/vscode/src/session/window-slot.js';

// Which window a new one continues: a reload takes over the gone window's record (its session,
// pending edits, connection); a second window beside a live one gets a record of its own.

const edit = { path: '/ws/todo.txt', original: null, proposed: 'ship it\n', rev: 1, sessionId: 's1' };

/** A process that stays alive while the test needs a live window's extension host. */
function liveHost(): { pid: number; kill(): void } {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  return { pid: child.pid!, kill: () => child.kill('SIGKILL') };
}

describe('WindowSlot', () => {
  let dir: string;
  const hosts: { kill(): void }[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'window-slot-'));
  });
  afterEach(() => {
    for (const h of hosts.splice(0)) h.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shares one folder between the windows VS Code gives <hash> and <hash>-N', () => {
    expect(sharedStorage('/u/workspaceStorage/-506d1ec4-1/ferret.chimera')).toBe('/u/workspaceStorage/-506d1ec4/ferret.chimera');
    expect(sharedStorage('/u/workspaceStorage/-506d1ec4/ferret.chimera')).toBe('/u/workspaceStorage/-506d1ec4/ferret.chimera');
    expect(sharedStorage('/u/workspaceStorage/9f2c/ferret.chimera')).toBe('/u/workspaceStorage/9f2c/ferret.chimera');
    // A hash that is a negative number is not a suffix.
    expect(sharedStorage('/u/workspaceStorage/-7/ferret.chimera')).toBe('/u/workspaceStorage/-7/ferret.chimera');
  });

  it('a reloaded window continues the released record: its session and pending edits come back', async () => {
    const host = liveHost();
    hosts.push(host);
    const first = await WindowSlot.claim(dir, 'own', host.pid, 0);
    first.remember('s1');
    first.setPending([edit]);
    first.release();
    const next = await WindowSlot.claim(dir, 'own', process.pid, 0);
    expect(next.previous?.id).toBe(first.record.id);
    expect(next.resumable()).toBe('s1');
    expect(next.record.pending).toEqual([edit]);
    // The old record is gone from the folder: nobody else can continue it too.
    expect(WindowSlot.records(join(dir, 'windows')).map((r) => r.id)).toEqual([next.record.id]);
  });

  it('a record whose extension host died (no release) is continued too', async () => {
    const host = liveHost();
    const first = await WindowSlot.claim(dir, 'own', host.pid, 0);
    first.remember('s1');
    host.kill();
    await new Promise((r) => setTimeout(r, 200));
    const next = await WindowSlot.claim(dir, 'own', process.pid, 0);
    expect(next.previous?.id).toBe(first.record.id);
  });

  it('a second window beside a live one starts its own record and sees the first one\'s session', async () => {
    const host = liveHost();
    hosts.push(host);
    const first = await WindowSlot.claim(dir, 'base', host.pid, 0);
    first.remember('s1');
    first.setDetached({ serverPid: 1, serverUrl: 'http://127.0.0.1:1', connection: 'vscode-a', clientId: 'acp:a', held: [] });
    const t0 = Date.now();
    const second = await WindowSlot.claim(dir, 'base-1', process.pid, 3000);
    expect(Date.now() - t0).toBeLessThan(1000); // another window's folder: nothing to wait for
    expect(second.previous).toBeUndefined();
    expect(second.inheritedDetached(1, 'http://127.0.0.1:1')).toBeUndefined();
    expect(second.liveSession()).toBe('s1');
    // The first window's record is untouched.
    expect(JSON.parse(readFileSync(join(dir, 'windows', `${first.record.id}.json`), 'utf8'))).toMatchObject({ sessionId: 's1', detached: { connection: 'vscode-a' } });
  });

  it('waits for its own folder\'s old window to finish closing, then continues it', async () => {
    const host = liveHost();
    hosts.push(host);
    const first = await WindowSlot.claim(dir, 'own', host.pid, 0);
    first.remember('s1');
    setTimeout(() => first.release(), 400);
    const next = await WindowSlot.claim(dir, 'own', process.pid, 3000);
    expect(next.previous?.id).toBe(first.record.id);
  });

  it('hands over the connection only to a window on the same server', async () => {
    const first = await WindowSlot.claim(dir, 'own', 999_999_999, 0);
    first.setDetached({ serverPid: 10, serverUrl: 'http://127.0.0.1:5', connection: 'vscode-a', clientId: 'acp:a', held: [] });
    first.release();
    const next = await WindowSlot.claim(dir, 'own', process.pid, 0);
    expect(next.inheritedDetached(10, 'http://127.0.0.1:5')?.clientId).toBe('acp:a');
    expect(next.inheritedDetached(11, 'http://127.0.0.1:6')).toBeUndefined();
  });

  it('shows an old session again only when it ended recently or left edits to review', async () => {
    const first = await WindowSlot.claim(dir, 'own', 999_999_999, 0);
    first.remember('s1');
    first.release();
    const next = await WindowSlot.claim(dir, 'own', process.pid, 0);
    expect(next.resumable(Date.now() + RESUME_WITHIN_MS + 1000)).toBeUndefined();
    next.setPending([edit]);
    next.release();
    const third = await WindowSlot.claim(dir, 'own', process.pid, 0);
    expect(third.resumable(Date.now() + RESUME_WITHIN_MS + 1000)).toBe('s1');
  });

  it('tells a viewer window which edits of its session another live window reviews, and when that changes', async () => {
    const host = liveHost();
    hosts.push(host);
    const first = await WindowSlot.claim(dir, 'a', host.pid, 0);
    first.remember('s1');
    const second = await WindowSlot.claim(dir, 'b', process.pid, 0);
    second.remember('s1');
    let changes = 0;
    const stop = second.watch(() => changes++);
    first.setPending([edit, { ...edit, path: '/ws/other.txt', sessionId: 's2' }]);
    await expect.poll(() => changes, { timeout: 3000 }).toBeGreaterThan(0);
    stop();
    expect(second.reviewedElsewhere('s1')).toEqual(['/ws/todo.txt']);
    expect(second.reviewedElsewhere('s2')).toEqual(['/ws/other.txt']);
    // Its own pending edits are not "elsewhere"; a window that is gone reviews nothing.
    second.setPending([{ ...edit, path: '/ws/mine.txt' }]);
    expect(second.reviewedElsewhere('s1')).toEqual(['/ws/todo.txt']);
    first.release();
    expect(second.reviewedElsewhere('s1')).toEqual([]);
  });
});
