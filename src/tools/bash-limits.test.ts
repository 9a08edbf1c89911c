// Limits through the real bash tool: a fork bomb stops at the command's process limit and the
// machine stays responsive; a parallel build still works; under danger-full-access nothing a
// call started outlives it, even what left its process group.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxMode } from '../protocol/index.js';
import { COMMAND_LIMITS, createHostFacts, pidsCgroupAvailable, probeBwrap } from '../sandbox/index.js';
import { scratchRoot } from '../../test/support/scratch.js';
import { bashTool } from './bash.js';
import type { ToolContext } from './define.js';

const host = createHostFacts({ env: {} });
const base = realpathSync(mkdtempSync(join(scratchRoot(), 'bash-limits-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));
beforeAll(async () => {
  const probe = await probeBwrap(host);
  if (!probe.ok) throw new Error(`bubblewrap unavailable: ${probe.reason}`);
});

async function bash(command: string, sandbox: SandboxMode, timeout_ms?: number): Promise<{ status: string; output: string }> {
  const ctx: ToolContext = {
    cwd: base,
    callId: 'c',
    signal: new AbortController().signal,
    sandbox,
    files: { readText: () => Promise.reject(new Error('unused')), writeText: () => Promise.reject(new Error('unused')) },
    env: { ...process.env },
    facts: host.workspace(base),
    progress: () => {},
    fileEdit: () => {},
    fileOpen: () => {},
    violation: () => {},
  };
  const out = await bashTool.run({ command, ...(timeout_ms ? { timeout_ms } : {}) }, ctx);
  return { status: out.status, output: out.output };
}

/** Processes on the host whose command line contains `needle` (not this test's own). */
function hostProcesses(needle: string): number {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(needle) && !l.includes('ps -eo')).length;
}

describe('process limits', () => {
  // One mode only: the bomb loads the (shared) machine for seconds; read-only confines the same way.
  it.each<SandboxMode>(['workspace-write'])('a fork bomb under %s ends with an error at the limit; the event loop stays responsive', async (mode) => {
    // The event loop's worst delay while the bomb runs: the server's /health answers from it. (Not
    // a process start from here: Node waits for its child's exec on the loop, the very thing measured.)
    let worstLag = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      worstLag = Math.max(worstLag, now - last - 10);
      last = now;
    }, 10);
    const r = await bash(':(){ :|:& };:; sleep 8; echo survived', mode, 30_000);
    clearInterval(tick);
    expect(r.output).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
    expect(r.output).toContain('survived'); // the command itself went on: only its forks failed
    // With a pids cgroup the call says so, and fails.
    if (pidsCgroupAvailable()) {
      expect(r.output).toMatch(new RegExp(`reached its process limit \\(${COMMAND_LIMITS.pidsMax} processes and threads\\): \\d+ forks were refused`));
      expect(r.status).toBe('failed');
    }
    // The bomb stops at its limit; its processes' CPU is weighed down by the commands' CPU cgroup
    // where there is one (cpu-cgroup.ts). This bound is loose (the suite runs beside it);
    // test/e2e/fork-bomb-health.test.ts holds the server's /health to p95 < 100 ms.
    expect(worstLag).toBeLessThan(500);
    // Nothing of it is left once the call returned.
    await new Promise((res) => setTimeout(res, 200));
    expect(hostProcesses(':(){')).toBe(0);
  }, 60_000);

  it('the limit is the one in COMMAND_LIMITS, and `make -j8` of a small project works under it', async () => {
    const mk = ['all: ' + Array.from({ length: 16 }, (_, i) => `o${i}`).join(' '), ...Array.from({ length: 16 }, (_, i) => `o${i}:\n\t@sh -c 'sleep 0.2; echo built > $@'`)].join('\n') + '\n';
    writeFileSync(join(base, 'Makefile'), mk);
    const r = await bash('make -j8 && cat o0 o15 && ulimit -u', 'workspace-write');
    expect(r.status).toBe('completed');
    expect(r.output).toContain('built\nbuilt\n');
    expect(r.output).toContain(`${COMMAND_LIMITS.pidsMax}\n`);
  }, 60_000);

  it.runIf(existsSync('/sys/fs/cgroup/cpu/cpu.shares') && process.getuid?.() === 0)('commands run in the commands\' CPU cgroup, with its low share (cgroup v1 here)', async () => {
    const r = await bash('cat /proc/self/cgroup', 'danger-full-access');
    const own = /^\d+:cpu(?:,cpuacct)?:(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1] ?? '/';
    const want = `${own === '/' ? '' : own}/ferret-${process.pid}`;
    expect(r.output).toMatch(new RegExp(`:cpu(,cpuacct)?:${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    expect(readFileSync(`/sys/fs/cgroup/cpu${want}/cpu.shares`, 'utf8').trim()).toBe(String(COMMAND_LIMITS.cpuShares));
    // Confined commands too: the wrapper joins before bwrap starts (their cgroup namespace hides the path).
    expect((await bash('echo inside', 'workspace-write')).output).toContain('inside');
  });

  it('under danger-full-access a `setsid` background process ends with its call', async () => {
    const tag = `ferret-limits-${process.pid}-${Date.now()}`;
    const r = await bash(`setsid sh -c 'sleep 300; echo ${tag}' >/dev/null 2>&1 < /dev/null & nohup bash -c 'exec -a ${tag}-b sleep 300' >/dev/null 2>&1 & echo started`, 'danger-full-access');
    expect(r.output).toContain('started');
    await new Promise((res) => setTimeout(res, 200));
    expect(hostProcesses(tag)).toBe(0); // either way (a cgroup, or the call's marker), nothing is left
  }, 60_000);

  it('without a cgroup, the marker of the call finds a process that left the group and its session', async () => {
    const { killMarked } = await import('../sandbox/confine/cgroup.js');
    const tag = `ferret-marker-${process.pid}-${Date.now()}`;
    execFileSync('sh', ['-c', `setsid bash -c 'exec -a ${tag} sleep 300' >/dev/null 2>&1 </dev/null &`], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', FERRET_CALL: tag } });
    await new Promise((res) => setTimeout(res, 200));
    expect(hostProcesses(tag)).toBe(1);
    expect(await killMarked('FERRET_CALL', `${tag}-other`)).toBe(0);
    expect(await killMarked('FERRET_CALL', tag)).toBe(1);
    await new Promise((res) => setTimeout(res, 200));
    expect(hostProcesses(tag)).toBe(0);
  }, 30_000);
});
