// The subreaper on its own, started the way the command helper starts a command (its own session
// and process group, killed with the group): what leaves the command dies when the command ends,
// or when the group is killed, and the command's exit code and signal come through.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prctlNumber, REAPER_MARKER, reaperMissing, reaperOf, underReaper } from './subreaper.js';
import { markedPids, waitUnmarked } from './cgroup.js';
import { endReapers, freezeAndKill } from './reaper-sweep.js';

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

let n = 0;
/** A `sleep` argument no other process uses, so /proc can tell its process apart. */
const tag = () => `1000.${process.pid}${++n}`;

/** Running processes whose command line is `sleep <arg>`. */
function sleeping(arg: string): number[] {
  return readdirSync('/proc').filter((e) => {
    if (!/^\d+$/.test(e)) return false;
    try {
      return readFileSync(`/proc/${e}/cmdline`, 'utf8') === `sleep\0${arg}\0` && alive(Number(e));
    } catch {
      return false;
    }
  }).map(Number);
}

async function until(ok: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await sleep(10);
  return ok();
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

  it('its two processes show their marker (the call\'s end waits on it) and their name', async () => {
    const mark = `${marker.value}-seen`;
    const r = start('sleep 0.3', mark);
    expect(await until(() => r.out() === '' && readdirSync('/proc').length > 0)).toBe(true);
    await sleep(100);
    const pids = await markedPids(REAPER_MARKER, mark);
    expect(pids).toHaveLength(2);
    for (const p of pids) expect(readFileSync(`/proc/${p}/comm`, 'utf8')).toBe('ferret-reaper\n');
    await r.ended;
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
    let info = '';
    try { info = readFileSync(`/proc/${pid}/stat`, 'utf8') + readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { /* gone */ }
    expect(alive(pid), info).toBe(false);
  });

  // bash execs the last simple command: C itself leaves the group and clears its environment, so
  // the group's kill reaches only W, and R learns of it from W's death (PR_SET_PDEATHSIG).
  for (const [name, script] of [
    ['as the whole command', (t: string) => `env -i setsid sleep ${t}`],
    ['exec\'d', (t: string) => `exec env -i setsid sleep ${t}`],
  ] as const) {
    it(`kills \`env -i setsid sleep\` ${name} when the group is killed, and the reaper ends`, async () => {
      const away = tag();
      const mark = `${marker.value}-whole${n}`;
      const r = start(script(away), mark);
      expect(await until(() => sleeping(away).length === 1)).toBe(true);
      process.kill(-r.child.pid!, 'SIGKILL');
      expect(await waitUnmarked(REAPER_MARKER, mark, 5000)).toBe(true);
      expect(await until(() => sleeping(away).length === 0, 1000)).toBe(true);
    });
  }

  it('kills what the command left after it killed its reaper (W takes over as subreaper)', async () => {
    const away = tag();
    const mark = `${marker.value}-kill${n}`;
    const r = start(`kill -9 $PPID; env -i setsid sleep ${away} & echo started`, mark);
    await r.ended;
    expect(await waitUnmarked(REAPER_MARKER, mark, 5000)).toBe(true);
    expect(await until(() => sleeping(away).length === 0, 1000)).toBe(true);
  });

  it('does not hang when the command stops its reaper: it is killed, and what it left', async () => {
    const away = tag();
    const mark = `${marker.value}-stop${n}`;
    const t0 = Date.now();
    const r = start(`kill -STOP $PPID; env -i setsid sleep ${away} & sleep 0.2; echo after`, mark);
    const end = await r.ended;
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(end, r.out()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(r.out()).toContain('the command stopped its reaper');
    expect(await waitUnmarked(REAPER_MARKER, mark, 5000)).toBe(true);
    expect(await until(() => sleeping(away).length === 0, 1000)).toBe(true);
  });

  it('a command that stops both its reapers leaves nothing behind once its group is killed', async () => {
    const away = tag();
    const mark = `${marker.value}-both${n}`;
    // W first (so it cannot react to R's stop), then R. Once C is gone W's group is orphaned with a
    // stopped member (SIGHUP ends W), R's group in turn (R ignores SIGHUP, goes on and sweeps);
    // the group kill stands for the call's timeout, and the call's end for what is still there.
    const r = start(`kill -STOP $(cut -d" " -f4 /proc/$PPID/stat); sleep 0.1; kill -STOP $PPID; env -i setsid sleep ${away} & echo "started $!"`, mark);
    expect(await until(() => r.out().includes('started')), r.out()).toBe(true);
    const pid = Number(/started (\d+)/.exec(r.out())?.[1]);
    process.kill(-r.child.pid!, 'SIGKILL'); // the sleep may hold the pipes: no waiting for them
    const t0 = Date.now();
    await endReapers(REAPER_MARKER, mark, 5000);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await waitUnmarked(REAPER_MARKER, mark, 2000)).toBe(true);
    expect(await until(() => !alive(pid) && sleeping(away).length === 0, 1000)).toBe(true);
  });

  it('ends a stopped process and everything under it (what the server does to a reaper stopped for good)', async () => {
    const [a, b] = [tag(), tag()];
    const tree = spawn('/bin/sh', ['-c', `sleep ${a} & sh -c 'sleep ${b}' & wait`], { detached: true, stdio: 'ignore' });
    expect(await until(() => sleeping(a).length === 1 && sleeping(b).length === 1)).toBe(true);
    process.kill(tree.pid!, 'SIGSTOP');
    expect(await freezeAndKill([tree.pid!])).toBe(4); // sh, sleep, sh, sleep
    expect(await until(() => sleeping(a).length + sleeping(b).length === 0, 1000)).toBe(true);
  });
});
