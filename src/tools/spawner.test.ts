import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bashTool } from './bash.js';
import type { ToolContext } from './define.js';
import { createHostFacts } from '../sandbox/index.js';
import { execInHelper, spawnCommand, spawnerPid } from './spawner.js';

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'ferret-spawner-')));
afterAll(() => rmSync(ws, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function ctx(progress: (text: string) => void = () => {}): ToolContext {
  return {
    cwd: ws,
    callId: 'c',
    signal: new AbortController().signal,
    sandbox: 'danger-full-access', // no bubblewrap needed: this is about the helper, not the sandbox
    files: { readText: () => Promise.reject(new Error('unused')), writeText: () => Promise.reject(new Error('unused')) },
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    facts: createHostFacts({ env: {} }).workspace(ws),
    progress: (_stream, text) => progress(text),
    fileEdit: () => {},
    fileOpen: () => {},
    violation: () => {},
  };
}

/** Running (a zombie, killed but not reaped by whoever it was handed to, is not). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('the command helper', () => {
  it('runs a short program for the bubblewrap probe: its exit code and output, started by the helper, not by this process', async () => {
    const r = await execInHelper('/bin/sh', ['-c', 'echo out; echo err >&2; echo "$PPID" >&2; exit 3'], { PATH: '/usr/bin:/bin' });
    expect(r.code).toBe(3);
    expect(r.out.split('\n').slice(0, 2)).toEqual(['out', 'err']);
    expect(Number(r.out.split('\n')[2])).toBe(spawnerPid()); // its parent is the helper
    const slow = await execInHelper('/bin/sh', ['-c', 'sleep 30'], { PATH: '/usr/bin:/bin' }, 200);
    expect(slow).toEqual({ code: 1, out: 'killed by SIGKILL' });
  });

  it('a command that cannot start says why', async () => {
    const r = await spawnCommand(join(ws, 'no-such-program'), [], { cwd: ws, env: {}, keepChars: 1024 });
    expect(r).toMatchObject({ exitCode: undefined, failed: true });
    expect(r.message).toMatch(/^could not start the command: .*ENOENT/);
  });

  it('when the helper dies mid-command, the bash result says so (not "signal unknown"), the command is killed, and the next command runs', async () => {
    let out = '';
    const call = bashTool.run({ command: 'echo started $$; exec sleep 30' }, ctx((t) => (out += t)));
    for (let i = 0; i < 200 && !out.includes('started'); i++) await sleep(10);
    const pid = Number(/started (\d+)/.exec(out)?.[1]);
    const helper = spawnerPid();
    expect(helper).toBeDefined();
    expect(alive(pid)).toBe(true);
    process.kill(helper!, 'SIGKILL');
    const r = await call;
    expect(r.status).toBe('failed');
    expect(r.output).toContain('[no exit code: the command helper process went away (killed by SIGKILL) before the command ended: its exit status is unknown (its process group was killed)]');
    expect(r.output).not.toContain('signal unknown');
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(10);
    expect(alive(pid)).toBe(false); // no orphan left running where nobody reads it
    const next = await bashTool.run({ command: 'echo again' }, ctx());
    expect(next).toMatchObject({ status: 'completed', exitCode: 0 });
    expect(next.output).toContain('again');
    expect(spawnerPid()).not.toBe(helper); // a new helper
  });
});
