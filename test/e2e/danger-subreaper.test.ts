// Under danger-full-access every process a command starts ends with its call (or, for a
// background process, with that process), even one that leaves the command's process group and
// clears its environment (`env -i setsid`), which neither the group kill nor the call's marker
// reaches. The built server runs as an ordinary user (nobody), who cannot make cgroups: so the
// subreaper (sandbox/confine/subreaper.ts) is what ends them, not a pids cgroup.
import { chownSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FerretClient, type Json } from '../support/ferret-client.mjs';
import { eachTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

const NOBODY = 65534;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
/** A `sleep` argument no other test or process uses, so /proc can tell its process apart. */
const tag = () => `1000.${process.pid}${++n}`;

/** Running processes whose command line is `sleep <arg>` (zombies are ended). */
function sleeping(arg: string): number[] {
  const found: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8') !== `sleep\0${arg}\0`) continue;
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${e}/stat`, 'utf8'))) continue;
      found.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Running reapers (subreaper.ts) of user nobody: every test's server runs as nobody, one at a time. */
function reapers(): number[] {
  const found: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/comm`, 'utf8') !== 'ferret-reaper\n') continue;
      const stat = readFileSync(`/proc/${e}/status`, 'utf8');
      if (/^State:\s+Z/m.test(stat) || !new RegExp(`^Uid:\\s+${NOBODY}\\b`, 'm').test(stat)) continue;
      found.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function until(ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok() && Date.now() < end) await sleep(20);
}

describe('danger-full-access: nothing a command starts outlives it (run as a user without cgroups)', () => {
  const t = eachTest((env, args, extra) => {
    for (const d of [env.home, env.ws]) chownSync(d, NOBODY, NOBODY);
    return new FerretClient(['--cwd', env.ws, '--sandbox', 'danger-full-access', '--approval', 'full-auto', ...args], { CHIMERA_HOME: env.home, HOME: env.home, ...extra }, { uid: NOBODY, gid: NOBODY });
  });

  function server(responses: Json[]): FerretClient {
    const model = writeScript(t.env.home, 'model.json', { responses });
    const srv = t.start(['--model', `scripted:${model}`]);
    return srv;
  }

  /** The server really has no pids cgroup (else the cgroup, not the subreaper, would do the work). */
  function noCgroup(srv: FerretClient): void {
    expect(existsSync(`/sys/fs/cgroup/pids/ferret-${srv.child.pid}`)).toBe(false);
  }

  it('a child that ran `env -i setsid` is gone once the call has answered', async () => {
    const away = tag();
    const srv = server([{ toolCalls: [{ name: 'bash', arguments: { command: `env -i setsid sh -c 'sleep ${away} & echo $!'; echo called` } }] }, { chunks: ['done'] }]);
    const sid = (await srv.call('session/new', {}))['sessionId'] as string;
    await srv.call('session/message', { sessionId: sid, text: 'go' });
    noCgroup(srv);
    const end = srv.messages.find((m) => m['params']?.kind === 'tool_call_end')?.['params'] as Json;
    const output = String((end['result'] as Json)['output']);
    expect(output).toContain('called');
    const pid = Number(/^(\d+)$/m.exec(output)?.[1]);
    expect(pid).toBeGreaterThan(0); // it did start
    expect(sleeping(away)).toEqual([]);
    expect(existsSync(`/proc/${pid}/cmdline`) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep')).toBe(false);
  }, 30_000);

  it('cancelled mid-call, the command and the child that left it are both gone', async () => {
    const away = tag();
    const stay = tag();
    const srv = server([{ toolCalls: [{ name: 'bash', arguments: { command: `env -i setsid sh -c 'sleep ${away} & echo $!'; sleep ${stay}` } }] }, { chunks: ['done'] }]);
    const sid = (await srv.call('session/new', {}))['sessionId'] as string;
    const answer = srv.call('session/message', { sessionId: sid, text: 'go' });
    await until(() => sleeping(away).length === 1 && sleeping(stay).length === 1);
    expect(sleeping(away)).toHaveLength(1); // both run
    expect(sleeping(stay)).toHaveLength(1);
    noCgroup(srv);
    await srv.call('session/cancel', { sessionId: sid });
    expect((await answer)['stopReason']).toBe('cancelled');
    expect(sleeping(stay)).toEqual([]);
    expect(sleeping(away)).toEqual([]);
  }, 30_000);

  it('a background process\'s `env -i setsid` child dies with process_kill, not before', async () => {
    const away = tag();
    const stay = tag();
    const srv = server([
      { toolCalls: [{ name: 'bash', arguments: { command: `env -i setsid sh -c 'sleep ${away} & echo $!'; exec sleep ${stay}`, background: true } }] },
      { chunks: ['started'] },
      { toolCalls: [{ name: 'process_kill', arguments: { id: 'proc_1' } }] },
      { chunks: ['stopped'] },
    ]);
    const sid = (await srv.call('session/new', {}))['sessionId'] as string;
    await srv.call('session/message', { sessionId: sid, text: 'start it' });
    await until(() => sleeping(away).length === 1);
    await sleep(300);
    expect(sleeping(away)).toHaveLength(1); // outlives the call that started it: it belongs to the process
    expect(sleeping(stay)).toHaveLength(1);
    noCgroup(srv);
    await srv.call('session/message', { sessionId: sid, text: 'stop it' });
    await until(() => sleeping(away).length === 0 && sleeping(stay).length === 0, 5000);
    expect(sleeping(stay)).toEqual([]);
    expect(sleeping(away)).toEqual([]);
  }, 30_000);

  // bash execs the last simple command: the command itself leaves the group and clears its
  // environment, so the group's kill reaches only the reaper's first process (subreaper.ts).
  for (const [how, command] of [
    ['cancelled', (t: string) => `env -i setsid sleep ${t}`],
    ['timed out', (t: string) => `exec env -i setsid sleep ${t}`],
  ] as const) {
    it(`\`env -i setsid sleep\` as the whole command, ${how}: the sleep and the reaper are gone`, async () => {
      const away = tag();
      const timed = how === 'timed out';
      const srv = server([{ toolCalls: [{ name: 'bash', arguments: { command: command(away), ...(timed ? { timeout_ms: 3000 } : {}) } }] }, { chunks: ['done'] }]);
      const sid = (await srv.call('session/new', {}))['sessionId'] as string;
      const answer = srv.call('session/message', { sessionId: sid, text: 'go' });
      await until(() => sleeping(away).length === 1);
      expect(sleeping(away)).toHaveLength(1);
      noCgroup(srv);
      if (!timed) await srv.call('session/cancel', { sessionId: sid });
      expect((await answer)['stopReason']).toBe(timed ? 'end_turn' : 'cancelled');
      expect(sleeping(away)).toEqual([]);
      expect(reapers()).toEqual([]);
    }, 30_000);
  }

  it('a command that kills its reaper (`kill -9 $PPID`) still leaves nothing behind', async () => {
    const away = tag();
    const srv = server([{ toolCalls: [{ name: 'bash', arguments: { command: `kill -9 $PPID; env -i setsid sleep ${away} &` } }] }, { chunks: ['done'] }]);
    const sid = (await srv.call('session/new', {}))['sessionId'] as string;
    await srv.call('session/message', { sessionId: sid, text: 'go' });
    noCgroup(srv);
    expect(sleeping(away)).toEqual([]);
    expect(reapers()).toEqual([]);
  }, 30_000);

  it('a command that stops its reaper (`kill -STOP $PPID`) ends at once, and nothing it started is left', async () => {
    const away = tag();
    const srv = server([{ toolCalls: [{ name: 'bash', arguments: { command: `kill -STOP $PPID; env -i setsid sleep ${away} & sleep 0.2; echo after` } }] }, { chunks: ['done'] }]);
    const sid = (await srv.call('session/new', {}))['sessionId'] as string;
    const t0 = Date.now();
    await srv.call('session/message', { sessionId: sid, text: 'go' });
    expect(Date.now() - t0).toBeLessThan(5000); // not the 120 s default timeout
    noCgroup(srv);
    const end = srv.messages.find((m) => m['params']?.kind === 'tool_call_end')?.['params'] as Json;
    expect(String((end['result'] as Json)['output'])).toContain('the command stopped its reaper');
    expect(sleeping(away)).toEqual([]);
    expect(reapers()).toEqual([]);
  }, 30_000);
});
