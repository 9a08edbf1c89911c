// Which CPU cgroup commands get, against fake cgroup roots (plain folders shaped like v1's `cpu`
// mount and v2's unified tree), and, where this machine lets ferret write its cgroups, the real one.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMAND_LIMITS } from '../limits.js';
import { commandCpuProcs, setUpV1Cpu, setUpV2Cpu, v1CpuParent } from './cpu-cgroup.js';

const roots: string[] = [];
function fakeRoot(): string {
  const r = mkdtempSync(join(tmpdir(), 'fake-cgroup-'));
  roots.push(r);
  return r;
}
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

describe('cgroup v1: the cpu hierarchy', () => {
  it('finds the cpu mount by the controller list, and makes ferret-<pid> there with the commands\' share', () => {
    const root = fakeRoot();
    mkdirSync(join(root, 'cpu,cpuacct', 'user.slice'), { recursive: true });
    writeFileSync(join(root, 'cpu,cpuacct', 'cpu.shares'), '1024');
    const self = '12:pids:/user.slice\n3:cpu,cpuacct:/user.slice\n0::/user.slice\n';
    expect(v1CpuParent({ root, self, pid: 42 })).toBe(join(root, 'cpu,cpuacct', 'user.slice'));
    const made = setUpV1Cpu({ root, self, pid: 42 });
    expect(made?.procs).toBe(join(root, 'cpu,cpuacct', 'user.slice', 'ferret-42', 'cgroup.procs'));
    expect(readFileSync(join(root, 'cpu,cpuacct', 'user.slice', 'ferret-42', 'cpu.shares'), 'utf8')).toBe(String(COMMAND_LIMITS.cpuShares));
  });

  it('prefers the plain `cpu` mount when it is there (this machine: `1:cpu:/`)', () => {
    const root = fakeRoot();
    mkdirSync(join(root, 'cpu'), { recursive: true });
    writeFileSync(join(root, 'cpu', 'cpu.shares'), '1024');
    expect(v1CpuParent({ root, self: '1:cpu:/\n0::/\n', pid: 7 })).toBe(join(root, 'cpu'));
  });

  it('removes the folders of servers that are gone, keeps its own', () => {
    const root = fakeRoot();
    mkdirSync(join(root, 'cpu', 'ferret-999999999'), { recursive: true });
    writeFileSync(join(root, 'cpu', 'cpu.shares'), '1024');
    setUpV1Cpu({ root, self: '1:cpu:/\n', pid: process.pid });
    expect(existsSync(join(root, 'cpu', 'ferret-999999999'))).toBe(false);
    expect(existsSync(join(root, 'cpu', `ferret-${process.pid}`))).toBe(true);
  });

  it('none on a v2-only host, or without a cpu mount', () => {
    const root = fakeRoot();
    expect(v1CpuParent({ root, self: '0::/system.slice/x.service\n', pid: 1 })).toBeUndefined();
    expect(v1CpuParent({ root, self: '4:cpu:/\n', pid: 1 })).toBeUndefined();
    expect(setUpV1Cpu({ root, self: '4:cpu:/\n', pid: 1 })).toBeUndefined();
  });
});

describe('cgroup v2: the weight on the server\'s folder', () => {
  it('hands cpu down from the parent and weighs the folder that holds the commands', () => {
    const root = fakeRoot();
    const dir = join(root, 'ferret-5');
    mkdirSync(dir);
    writeFileSync(join(root, 'cgroup.subtree_control'), 'pids');
    expect(setUpV2Cpu(root, dir)).toBe(true);
    expect(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+cpu');
    expect(readFileSync(join(dir, 'cpu.weight'), 'utf8')).toBe(String(COMMAND_LIMITS.cpuWeight));
  });

  it('leaves subtree_control alone when cpu is handed down already', () => {
    const root = fakeRoot();
    mkdirSync(join(root, 'ferret-5'));
    writeFileSync(join(root, 'cgroup.subtree_control'), 'cpu pids\n');
    expect(setUpV2Cpu(root, join(root, 'ferret-5'))).toBe(true);
    expect(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8')).toBe('cpu pids\n');
  });

  it('says no where the parent cannot be read or written', () => {
    const root = fakeRoot();
    expect(setUpV2Cpu(join(root, 'missing'), join(root, 'missing', 'ferret-5'))).toBe(false);
  });
});

describe('this machine', () => {
  const self = existsSync('/proc/self/cgroup') ? readFileSync('/proc/self/cgroup', 'utf8') : '';
  const parent = v1CpuParent({ root: '/sys/fs/cgroup', self, pid: process.pid });
  it.runIf(parent !== undefined && process.getuid?.() === 0)('commands get a v1 cpu folder with a low share', () => {
    const procs = commandCpuProcs();
    expect(procs).toBe(join(parent!, `ferret-${process.pid}`, 'cgroup.procs'));
    expect(readFileSync(join(parent!, `ferret-${process.pid}`, 'cpu.shares'), 'utf8').trim()).toBe(String(COMMAND_LIMITS.cpuShares));
  });
});
