// Families 4 and 5 through the real bash tool (bubblewrap, the pre-run scan and the post-run
// sweep): a confined command cannot change repository metadata the host runs later (any
// depth, whatever points to it), cannot leave a new repository or auto-run file behind, and
// cannot see ferret's own state. Variants are generated: each way to write × each target.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxMode } from '../protocol/index.js';
import { createHostFacts, probeBwrap } from '../sandbox/index.js';
import { scratchRoot } from '../../test/support/scratch.js';
import { bashTool } from './bash.js';
import type { ToolContext } from './define.js';

const host = createHostFacts({ env: {} });
const base = realpathSync(mkdtempSync(join(scratchRoot(), 'bash-guard-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface Ran {
  status: string;
  output: string;
  violations: { reason: string; path?: string }[];
}

async function bash(ws: string, command: string, sandbox: SandboxMode = 'workspace-write'): Promise<Ran> {
  const violations: Ran['violations'] = [];
  const ctx: ToolContext = {
    cwd: ws,
    callId: 'c',
    signal: new AbortController().signal,
    sandbox,
    files: { readText: () => Promise.reject(new Error('unused')), writeText: () => Promise.reject(new Error('unused')) },
    env: { ...process.env },
    facts: host.workspace(ws),
    progress: () => {},
    fileEdit: () => {},
    fileOpen: () => {},
    violation: (reason, path) => violations.push({ reason, ...(path ? { path } : {}) }),
  };
  const out = await bashTool.run({ command }, ctx);
  return { status: out.status, output: out.output, violations };
}

// Built at run time, so the test's own source never contains it (a `grep -r` of the tree finds files).
const MARK = ['SECRET', 'MARK', String(process.pid)].join('-');
const MARK_HEX = Buffer.from(MARK.slice(0, 8)).toString('hex');

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' });

/** Every `.git` (any depth) and root-level auto-run name under ws, as relative paths. */
function metaEntries(ws: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === '.git' || (!rel && ['.vscode', '.envrc', '.claude', '.idea', '.npmrc'].includes(e.name))) out.push(r);
      else if (e.isDirectory() && !e.isSymbolicLink()) walk(join(d, e.name), r);
    }
  };
  walk(ws, '');
  return out.sort();
}

beforeAll(async () => {
  const probe = await probeBwrap(host);
  if (!probe.ok) throw new Error(`bubblewrap unavailable: ${probe.reason}`);
});

describe('existing metadata stays as it is, whatever the command tries', () => {
  let ws = '';
  const protectedFiles: Record<string, string> = {};
  beforeAll(() => {
    ws = join(base, 'repo');
    mkdirSync(ws);
    git(ws, 'init', '-q');
    git(ws, 'config', 'core.hooksPath', '.githooks');
    git(ws, 'config', 'core.fsmonitor', 'tools/fsmon.sh');
    const files: Record<string, string> = {
      '.githooks/pre-commit': '#!/bin/sh\nexit 0\n',
      'tools/fsmon.sh': '#!/bin/sh\n',
      '.vscode/tasks.json': '{}\n',
      '.envrc': 'export A=1\n',
      '.claude/settings.json': '{}\n',
      'wt/.git': 'gitdir: ../gd\n',
      'gd/HEAD': 'ref: refs/heads/main\n',
      'gd/config': '[core]\n',
      'gd/commondir': '../.git\n',
      'vendor/lib/x.txt': 'x\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(ws, rel, '..'), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
    git(join(ws, 'vendor/lib'), 'init', '-q');
    for (const rel of [...Object.keys(files).filter((r) => r !== 'vendor/lib/x.txt'), '.git/config', 'vendor/lib/.git/config', '.git/HEAD']) {
      protectedFiles[rel] = readFileSync(join(ws, rel), 'utf8');
    }
  });

  const targets = ['.git/config', '.git/hooks/pre-commit', 'vendor/lib/.git/config', 'vendor/lib/.git/hooks/post-checkout', 'wt/.git', 'gd/config', 'gd/hooks/pre-commit', '.githooks/pre-commit', 'tools/fsmon.sh', '.vscode/tasks.json', '.envrc', '.claude/settings.json'];
  const ways: [string, (t: string) => string][] = [
    ['redirect', (t) => `echo pwned > ${t}`],
    ['append', (t) => `echo pwned >> ${t}`],
    ['tee', (t) => `echo pwned | tee ${t}`],
    ['sed -i', (t) => `sed -i '1s/^/pwned/' ${t}`],
    ['rm and recreate', (t) => `rm -rf ${t} && echo pwned > ${t}`],
    ['mv aside and recreate', (t) => `mv ${t} ${t}.old; echo pwned > ${t}`],
    ['replace the folder', (t) => `d=$(dirname ${t}); mv "$d" "$d.old" || rm -rf "$d"; mkdir -p "$d" && echo pwned > ${t}`],
    ['symlink swap', (t) => `rm -f ${t}; ln -s /etc/hostname ${t}`],
    ['node', (t) => `node -e "require('fs').writeFileSync('${t}', 'pwned')"`],
    ['git config', (t) => (t.endsWith('config') ? `git config -f ${t} core.fsmonitor 'touch /tmp/x'` : `cp /etc/hostname ${t}`)],
  ];
  it.each(targets.flatMap((t) => ways.map(([w, f]) => [t, w, f(t)] as const)))('%s by %s', async (target, _way, cmd) => {
    await bash(ws, cmd);
    for (const [rel, text] of Object.entries(protectedFiles)) {
      expect(lstatSync(join(ws, rel)).isFile(), rel).toBe(true);
      expect(readFileSync(join(ws, rel), 'utf8'), `${rel} after writing ${target}`).toBe(text);
    }
    expect(metaEntries(ws)).toEqual(['.claude', '.envrc', '.git', '.vscode', 'vendor/lib/.git', 'wt/.git']);
  });
});

describe('a command cannot leave new metadata behind', () => {
  const makers: [string, (x: string) => string][] = [
    ['git init', (x) => `git init -q ${x}`],
    ['git -C init', (x) => `mkdir -p ${x} && git -C ${x} init -q`],
    ['mkdir .git/hooks', (x) => `mkdir -p ${x}/.git/hooks && printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > ${x}/.git/hooks/pre-commit`],
    ['.git file', (x) => `mkdir -p ${x}/gd && echo 'gitdir: gd' > ${x}/.git`],
    ['rename into place', (x) => `mkdir -p ${x}/staged/hooks && mv ${x}/staged ${x}/.git`],
    ['symlink named .git', (x) => `mkdir -p ${x}/real && ln -s real ${x}/.git`],
    ['copy a repository', (x) => `mkdir -p ${x} && cp -r .git ${x}/.git 2>/dev/null || cp -r /usr/share/git-core/templates ${x}/.git`],
    ['in the background', (x) => `(sleep 0.2; git init -q ${x}) & wait`],
  ];
  const wheres = ['.', 'sub', 'a/b/c'];
  let n = 0;
  it.each(wheres.flatMap((x) => makers.map(([m, f]) => [x, m, f(x)] as const)))('in %s by %s', async (where, _m, cmd) => {
    // A workspace that is not a repository (so `git init .` is a real try), inside a parent that is.
    const parent = join(base, `fresh-${n++}`);
    const ws = join(parent, 'pkg');
    mkdirSync(ws, { recursive: true });
    git(parent, 'init', '-q');
    const r = await bash(ws, cmd);
    expect(metaEntries(ws)).toEqual([]);
    const moved = readdirSync(join(ws, where === '.' ? '' : where)).filter((e) => e.startsWith('.git.ferret-blocked-'));
    if (moved.length > 0) {
      expect(r.status).toBe('failed');
      expect(r.violations.some((v) => v.path === join(ws, where === '.' ? '' : where, '.git'))).toBe(true);
    }
    // The parent repository still works for the command and for the host.
    expect((await bash(ws, 'git status --short >/dev/null && echo ok')).output).toMatch(/^ok/);
  });

  it.each(['.vscode/tasks.json', '.envrc', '.claude/settings.json', '.npmrc', '.idea/workspace.xml'])('a new %s is moved aside', async (rel) => {
    const ws = join(base, `auto-${n++}`);
    mkdirSync(ws);
    const r = await bash(ws, `mkdir -p $(dirname ${rel}) && echo '{}' > ${rel}`);
    expect(existsSync(join(ws, rel))).toBe(false);
    expect(r.status).toBe('failed');
    expect(r.violations.length).toBeGreaterThan(0);
  });

  it('staged by one command and renamed into place by the next (after the sweep\'s clock margin) is still moved aside', async () => {
    const ws = join(base, `staged-${n++}`);
    mkdirSync(ws);
    expect((await bash(ws, 'mkdir -p sub/staged/hooks v && echo "{}" > v/tasks.json')).status).toBe('completed');
    await new Promise((r) => setTimeout(r, 1500)); // older than the run's start by more than the 1 s margin
    const r = await bash(ws, 'mv sub/staged sub/.git && mv v .vscode');
    expect(r.status).toBe('failed');
    expect(metaEntries(ws)).toEqual([]);
    expect(r.violations.map((v) => v.path).sort()).toEqual([join(ws, '.vscode'), join(ws, 'sub', '.git')]);
  });

  // The same makers once the guard's folder index trusts its watch (dir-index.ts): the scan
  // after the command lstats only what the watch reported, and must still find each of them.
  describe('in a tree the folder watch already vouches for', () => {
    let k = 0;
    const warmTree = async (): Promise<string> => {
      const ws = join(base, `warm-${k++}`);
      for (let i = 0; i < 40; i++) mkdirSync(join(ws, 'lib', `m${i}`, 'src'), { recursive: true });
      mkdirSync(join(ws, 'a', 'b', 'c'), { recursive: true });
      mkdirSync(join(ws, 'sub'));
      // Older than the racy window (dir-index.ts): 100 ms where times are finer than a millisecond.
      const fine = lstatSync(ws).ctimeMs % 1 !== 0;
      await new Promise((r) => setTimeout(r, fine ? 250 : 2600));
      for (let i = 0; i < 3; i++) expect((await bash(ws, 'true')).status).toBe('completed');
      const index = host.workspace(ws).dirIndex?.index;
      expect(index?.watched).toBe(true);
      expect(index?.checks).toBeLessThan(5); // the root and what the command itself touched
      return ws;
    };
    it.each(makers)('deep down by %s', async (_m, f) => {
      const ws = await warmTree();
      const r = await bash(ws, f('a/b/c'));
      expect(metaEntries(ws)).toEqual([]);
      expect(r.status).toBe('failed');
      // And inside a folder with its mtime set back after the fact.
      const r2 = await bash(ws, `mkdir -p lib/m7/src/x/.git/hooks && touch -d 2001-01-01 lib/m7/src/x lib/m7/src lib/m7`);
      expect(r2.status).toBe('failed');
      expect(metaEntries(ws)).toEqual([]);
    });
    it('staged by one command and renamed into place by the next', async () => {
      const ws = await warmTree();
      expect((await bash(ws, 'mkdir -p lib/m3/src/staged/hooks')).status).toBe('completed');
      await new Promise((r) => setTimeout(r, 1500));
      const r = await bash(ws, 'mv lib/m3/src/staged lib/m3/src/.git');
      expect(r.status).toBe('failed');
      expect(metaEntries(ws)).toEqual([]);
    });
    it('a folder swapped in from outside the workspace, holding a repository', async () => {
      const ws = await warmTree();
      const r = await bash(ws, 'mkdir -p /tmp/evil/x && git init -q /tmp/evil/x/y && mv lib/m5 /tmp/old && mv /tmp/evil lib/m5');
      expect(r.status).toBe('failed');
      expect(metaEntries(ws)).toEqual([]);
    });
  });

  it('leaves no placeholder behind, and ordinary writes still work', async () => {
    const ws = join(base, `plain-${n++}`);
    mkdirSync(ws);
    const r = await bash(ws, 'mkdir -p build && echo hi > build/out.txt && ls -a');
    expect(r.status).toBe('completed');
    expect(readdirSync(ws)).toEqual(['build']);
  });
});

describe("ferret's own state is not there for commands", () => {
  const modes: SandboxMode[] = ['read-only', 'workspace-write'];
  const reads = [
    (h: string) => `cat ${h}/ferret/config.json`,
    (h: string) => `ls -R ${h}`,
    // Every place the state could be, not the whole disk: a walk of / (node_modules, the test
    // caches, /usr) took over 20 s on a loaded CI machine and proved nothing more.
    (h: string) => `find ${dirname(base)} ${dirname(h)} -name audit.jsonl 2>/dev/null; find / -maxdepth 3 -name audit.jsonl 2>/dev/null`,
    (h: string) => `grep -r ${MARK} ${h} ${base} 2>/dev/null`,
    (h: string) => `ln -s ${h} l 2>/dev/null; cat l/ferret/config.json`,
    (h: string) => `cd ${h}/.. && tar cf - $(basename ${h}) 2>/dev/null | strings`,
    (h: string) => `node -e "console.log(require('fs').readFileSync('${h}/ferret/audit.key','hex'))"`,
  ];
  const writes = [
    (h: string) => `echo '{"by":"person","decision":"always"}' >> ${h}/ferret/audit.jsonl`,
    (h: string) => `echo '{"mcpServers":{}}' > ${h}/ferret/config.json`,
    (h: string) => `rm -rf ${h}/eventlog`,
  ];
  for (const inside of [true, false]) {
    const where = inside ? 'inside the workspace' : 'outside it';
    describe(`CHIMERA_HOME ${where}`, () => {
      let ws = '';
      let home = '';
      let before = '';
      beforeAll(() => {
        ws = join(base, `home-${inside ? 'in' : 'out'}`);
        home = inside ? join(ws, '.chimera') : join(base, `state-${inside}`);
        mkdirSync(join(home, 'ferret'), { recursive: true });
        mkdirSync(join(home, 'eventlog', 'ferret-x'), { recursive: true });
        mkdirSync(ws, { recursive: true });
        writeFileSync(join(home, 'ferret', 'config.json'), `{"providers":{},"x":"${MARK}"}`);
        writeFileSync(join(home, 'ferret', 'audit.jsonl'), '');
        writeFileSync(join(home, 'ferret', 'audit.key'), MARK.repeat(4));
        writeFileSync(join(home, 'eventlog', 'ferret-x', 'events.jsonl'), `{"text":"${MARK}"}\n`);
        host.protectStateRoot(home);
        before = JSON.stringify(readdirSync(home, { recursive: true }).sort());
      });
      it.each(modes.flatMap((m) => reads.map((f, i) => [m, i, f] as const)))('%s: read #%i sees nothing', async (mode, _i, f) => {
        const r = await bash(ws, f(home), mode);
        expect(r.output).not.toContain(MARK);
        expect(r.output).not.toContain(MARK_HEX);
      });
      it.each(modes.flatMap((m) => writes.map((f, i) => [m, i, f] as const)))('%s: write #%i changes nothing', async (mode, _i, f) => {
        await bash(ws, f(home), mode);
        expect(JSON.stringify(readdirSync(home, { recursive: true }).sort())).toBe(before);
        expect(readFileSync(join(home, 'ferret', 'audit.jsonl'), 'utf8')).toBe('');
        expect(readFileSync(join(home, 'ferret', 'config.json'), 'utf8')).toContain(MARK);
      });
    });
  }
});
