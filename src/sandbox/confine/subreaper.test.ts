// The subreaper on its own, started the way the command helper starts a command (its own session
// and process group, killed with the group): what leaves the command dies when the command ends,
// or when the group is killed, and the command's exit code and signal come through.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prctlNumber, REAPER_MARKER, reaperMissing, reaperOf, underReaper } from './subreaper.js';
import { waitUnmarked } from './cgroup.js';

const reaper = reaperOf(() => '/usr/bin/perl');
const marker = { name: 'FERRET_CALL', value: `t${process.pid}` };

/** Running: not gone and not a zombie. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function start(script: string, mark = marker.value) {
  const run = underReaper(reaper!.perl, reaper!.nr, { ...marker, value: mark }, '/bin/bash', ['-c', script]);
  const child = spawn(run.file, run.args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', [REAPER_MARKER]: mark } });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (out += s));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
  return { child, ended, out: () => out };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(reaper !== undefined)('the subreaper', () => {
  it('knows the prctl number of the common architectures, and says why there is none', () => {
    expect(prctlNumber('x64')).toBe(157);
    expect(prctlNumber('arm64')).toBe(167);
    expect(prctlNumber('mips')).toBeUndefined();
    expect(reaperMissing(() => undefined)).toBe('perl not found');
    expect(reaperMissing(() => '/usr/bin/perl')).toBeUndefined();
  });

  it('passes the exit code through, and the marker to the command only', async () => {
    const r = start('echo "$FERRET_CALL/${FERRET_REAPER:-none}"; exit 3');
    expect(await r.ended).toEqual({ code: 3, signal: null });
    expect(r.out()).toBe(`${marker.value}/none\n`);
  });

  it('passes a signal through', async () => {
    const r = start('kill -TERM $$');
    expect(await r.ended).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('kills what left the command (env -i setsid) when the command ends', async () => {
    const r = start("env -i setsid sh -c 'sleep 1000 & echo $!'; echo done");
    expect((await r.ended).code).toBe(0);
    const pid = Number(r.out().split('\n')[0]);
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
    expect(r.out()).toContain('done');
  });

  it('kills what left the command when the command\'s group is killed (cancel), before the reaper is gone', async () => {
    const mark = `${marker.value}-cancel`;
    const r = start("env -i setsid sh -c 'sleep 1000 & echo $!' ; sleep 1000", mark);
    let pid = 0;
    for (let i = 0; i < 200 && !pid; i++) {
      await sleep(10);
      pid = Number(r.out().split('\n')[0]) || 0;
    }
    expect(alive(pid)).toBe(true);
    process.kill(-r.child.pid!, 'SIGKILL'); // what the command helper does on cancel
    expect(await waitUnmarked(REAPER_MARKER, mark, 5000)).toBe(true);
    expect(alive(pid)).toBe(false);
  });
});
