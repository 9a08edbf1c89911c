import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_IDS, ConfigSchema, type Message } from '../protocol/index.js';
import { createHostFacts } from '../sandbox/index.js';
import { createCore } from './create-core.js';
import { CONTEXT_PREFIX, pendingNote, type NoteInput } from './prompt/context-notes.js';
import { gitFacts, parseStatus, type EnvFacts } from './prompt/environment.js';
import { modelFamily } from './prompt/family.js';
import { InstructionReader, instructionNames, type InstructionFile } from './prompt/instructions.js';
import { buildSystemPrompt, type PromptParts } from './prompt/system-prompt.js';
import { agentsDirs } from './system-prompt.js';
import { closeAfterEach, scratch, spyOnModel } from './test-kit.js';

const BUILTINS = BUILTIN_TOOL_IDS.map((id) => ({ id, effect: ['bash'].includes(id) ? 'execute' : ['write_file', 'edit_file'].includes(id) ? 'write' : 'read' }));
const ENV: EnvFacts = { os: 'Linux 6.1 (linux x64)', date: '2030-01-02', workspace: '/w', git: { root: '/w', branch: 'main', status: 'clean' }, sandbox: 'workspace-write', approval: 'auto' };
const parts = (p: Partial<PromptParts> = {}): PromptParts => ({ mode: 'code', model: 'openai/gpt-5-codex', builtins: BUILTINS, env: ENV, instructions: [], ...p });
const prompt = (p: Partial<PromptParts> = {}) => buildSystemPrompt(parts(p)).text;

describe('the system prompt', () => {
  it('is substantial and covers the repository habits, the tools, approvals, git safety and the final message', () => {
    const p = prompt();
    expect(p.length).toBeGreaterThan(6000);
    for (const s of ['Read a file before you edit it', 'smallest change', 'Never claim a check you did not run', 'A denied call means no', 'sandbox violation', 'Never push', 'git reset --hard', 'what you changed', 'mcp__<server>__<tool>']) expect(p).toContain(s);
    for (const id of BUILTIN_TOOL_IDS) expect(p).toContain(`- ${id}: `);
  });

  it('carries the environment block', () => {
    const p = prompt();
    expect(p).toContain('# Environment\nOperating system: Linux 6.1 (linux x64)\nShell: bash');
    expect(p).toContain('Date: 2030-01-02');
    expect(p).toContain('Workspace: /w');
    expect(p).toContain('Git: repository at /w (the workspace); branch main; clean');
    expect(p).toMatch(/^Sandbox: workspace-write/m);
    expect(p).toMatch(/^Network for commands: none/m);
    expect(p).toMatch(/^Approval preset: auto/m);
    expect(prompt({ env: { ...ENV, sandbox: 'danger-full-access', git: undefined } })).toMatch(/^Network for commands: yes[^\n]*\nApproval/m);
    expect(prompt({ env: { ...ENV, git: undefined } })).toContain('Git: the workspace is not in a git repository');
    expect(prompt({ env: { ...ENV, workspace: '/r/pkg', git: { root: '/r', status: '2 changed' } } })).toContain('Git: repository at /r (the workspace is pkg/ in it); 2 changed');
  });

  it('has a plan variant that can neither write nor run, and names only the reading tools', () => {
    const p = prompt({ mode: 'plan' });
    expect(p).toMatch(/plan mode/);
    expect(p).toContain('cannot change files or run commands');
    expect(p).toContain('- read_file: ');
    for (const id of ['bash', 'write_file', 'edit_file']) expect(p).not.toContain(`- ${id}: `);
    expect(prompt()).not.toMatch(/plan mode/);
  });

  it('names only the built-ins the server has (--allowed-tools), whatever MCP tools come and go', () => {
    const p = prompt({ builtins: BUILTINS.filter((t) => t.id !== 'bash') });
    expect(p).not.toContain('- bash: ');
    expect(p).toContain('- grep: ');
  });

  it('adds a few lines for the model family', () => {
    expect(['openai/gpt-5-codex', 'openai/o3', 'local/gpt-oss-20b', 'anthropic/claude-sonnet-4-5', 'openrouter/claude-3.5', 'local/coder', 'scripted:/x/gpt.json'].map(modelFamily))
      .toEqual(['gpt', 'gpt', 'gpt', 'claude', 'claude', 'other', 'other']);
    const gpt = prompt();
    const claude = prompt({ model: 'anthropic/claude-sonnet-4-5' });
    const other = prompt({ model: 'local/coder' });
    expect(gpt).toContain('not with shell redirection');
    expect(claude).toContain('Do what was asked and no more');
    expect(other).toContain('well-formed JSON');
    expect(new Set([gpt, claude, other]).size).toBe(3);
  });

  it('is a pure function of its parts: equal parts, equal bytes', () => {
    expect(prompt()).toBe(prompt());
  });

  it('puts instructions last, broadest first, each cut at 32,000 characters and 64,000 in all', () => {
    const f = (label: string, text: string, cut = 0): InstructionFile => ({ label, dir: '/', text, cut });
    const p = prompt({ instructions: [f('$CHIMERA_HOME/ferret/AGENTS.md', 'MINE'), f('../AGENTS.md', 'REPO'), f('AGENTS.md', 'HERE')] });
    expect(p.indexOf('# Environment')).toBeLessThan(p.indexOf('## $CHIMERA_HOME/ferret/AGENTS.md\nMINE'));
    expect(p.indexOf('MINE')).toBeLessThan(p.indexOf('## ../AGENTS.md\nREPO'));
    expect(p.indexOf('REPO')).toBeLessThan(p.indexOf('## AGENTS.md\nHERE'));
    const big = buildSystemPrompt(parts({ instructions: [f('a/AGENTS.md', 'a'.repeat(32_000), 5), f('b/AGENTS.md', 'b'.repeat(32_000)), f('c/AGENTS.md', 'c'.repeat(10))] }));
    expect(big.instructionChars).toBe(64_000);
    expect(big.text).toContain('[5 more characters were left out; read a/AGENTS.md for the rest]');
    expect(big.text).toContain('## c/AGENTS.md\n\n[the instruction budget is used up: 10 more characters were left out; read c/AGENTS.md for the rest]');
  });
});

describe('the environment block', () => {
  it('reads the branch and a short status from git status', () => {
    expect(parseStatus('## main...origin/main [ahead 2]\n M a.ts\nA  b.ts\n?? c.ts\n', false)).toEqual({ branch: 'main (ahead 2)', status: '2 changed, 1 untracked' });
    expect(parseStatus('## No commits yet on trunk\n', false)).toEqual({ branch: 'trunk (no commits yet)', status: 'clean' });
    expect(parseStatus('## HEAD (no branch)\n', false)).toEqual({ branch: 'detached HEAD', status: 'clean' });
    expect(parseStatus('## dev\n M a\n M b\n M c', true)).toEqual({ branch: 'dev', status: '2 or more changed' });
  });

  it('runs git in a real repository, and says when there is none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferret-sp-git-'));
    try {
      const env = { PATH: '/usr/local/bin:/usr/bin:/bin' };
      expect(await gitFacts(dir, env)).toBeUndefined();
      execFileSync('git', ['init', '-q', '-b', 'feature', dir]);
      writeFileSync(join(dir, 'new.txt'), 'x');
      mkdirSync(join(dir, 'sub'));
      expect(await gitFacts(join(dir, 'sub'), env)).toEqual({ root: dir, branch: 'feature (no commits yet)', status: '1 untracked' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('project instructions', () => {
  const sandbox = createHostFacts({ env: {} });
  const ws = mkdtempSync(join(tmpdir(), 'ferret-sp-'));
  const home = mkdtempSync(join(tmpdir(), 'ferret-sp-home-'));
  // A workspace named through a symlink (a symlinked TMPDIR, a fleet's mount): its AGENTS.md is read all the same.
  const linked = `${ws}-link`;
  symlinkSync(ws, linked);
  afterAll(() => {
    for (const d of [linked, ws, home]) rmSync(d, { recursive: true, force: true });
  });
  afterEach(() => {
    for (const f of ['pkg', 'AGENTS.md', 'CLAUDE.md', 'GEMINI.md']) rmSync(join(ws, f), { recursive: true, force: true });
  });
  const reader = (cwd = ws, fallbacks?: string[]) => new InstructionReader(cwd, sandbox, instructionNames(fallbacks));
  const note = (n: Partial<NoteInput>): string | undefined =>
    pendingNote({ history: [], cwd: ws, touched: [], approval: 'auto', sandbox: 'workspace-write', stated: { approval: 'auto', sandbox: 'workspace-write' }, instructionChars: 0, reader: reader(), ...n });

  it('lists the folders on the way to each touched file, root first, once each', () => {
    expect(agentsDirs('/w', ['/w/a/b/x.ts', '/w/a/y.ts', '/outside/z.ts', '/w/top.ts'])).toEqual(['/w', '/w/a', '/w/a/b']);
  });

  it('reads AGENTS.md, else CLAUDE.md, else GEMINI.md (or the configured names), first found wins per folder', () => {
    writeFileSync(join(ws, 'GEMINI.md'), 'GEMINI RULE');
    expect(reader().inFolder(ws)?.text).toBe('GEMINI RULE');
    writeFileSync(join(ws, 'CLAUDE.md'), 'CLAUDE RULE');
    expect(reader().inFolder(ws)).toMatchObject({ label: 'CLAUDE.md', text: 'CLAUDE RULE' });
    expect(reader(ws, ['GEMINI.md']).inFolder(ws)?.text).toBe('GEMINI RULE');
    expect(reader(ws, []).inFolder(ws)).toBeUndefined();
    writeFileSync(join(ws, 'AGENTS.md'), 'ROOT RULE');
    expect(reader().inFolder(ws)).toMatchObject({ label: 'AGENTS.md', text: 'ROOT RULE' });
    expect(reader(linked).inFolder(linked)?.text).toBe('ROOT RULE');
  });

  it('the system prompt reads the person\'s file under CHIMERA_HOME, then the repository top down to the workspace', () => {
    mkdirSync(join(home, 'ferret'), { recursive: true });
    writeFileSync(join(home, 'ferret', 'AGENTS.md'), 'MY RULE');
    mkdirSync(join(ws, 'pkg', 'app'), { recursive: true });
    writeFileSync(join(ws, 'AGENTS.md'), 'TOP RULE');
    writeFileSync(join(ws, 'pkg', 'CLAUDE.md'), 'PKG RULE');
    writeFileSync(join(ws, 'pkg', 'app', 'AGENTS.md'), 'APP RULE');
    const files = reader(join(ws, 'pkg', 'app')).forSystemPrompt(home, ws);
    expect(files.map((f) => [f.label, f.text])).toEqual([
      ['$CHIMERA_HOME/ferret/AGENTS.md', 'MY RULE'],
      ['../../AGENTS.md', 'TOP RULE'],
      ['../CLAUDE.md', 'PKG RULE'],
      ['AGENTS.md', 'APP RULE'],
    ]);
    // Without a repository, only the workspace's own.
    expect(reader(join(ws, 'pkg', 'app')).forSystemPrompt(join(ws, 'nowhere'), undefined).map((f) => f.text)).toEqual(['APP RULE']);
  });

  it('above the workspace no link is followed', () => {
    mkdirSync(join(ws, 'pkg', 'app'), { recursive: true });
    writeFileSync(join(ws, 'notes.txt'), 'LINKED ABOVE');
    symlinkSync('notes.txt', join(ws, 'AGENTS.md'));
    writeFileSync(join(ws, 'pkg', 'GEMINI.md'), 'PKG GEMINI');
    const files = reader(join(ws, 'pkg', 'app')).forSystemPrompt(join(ws, 'no-home'), ws);
    expect(files.map((f) => f.text)).toEqual(['PKG GEMINI']);
    rmSync(join(ws, 'notes.txt'));
  });

  it('instructions of touched folders below the workspace come as one context message, once, nearer last', () => {
    writeFileSync(join(ws, 'AGENTS.md'), 'ROOT RULE');
    mkdirSync(join(ws, 'pkg', 'deep'), { recursive: true });
    writeFileSync(join(ws, 'pkg', 'AGENTS.md'), 'PKG RULE');
    writeFileSync(join(ws, 'pkg', 'deep', 'CLAUDE.md'), 'DEEP RULE');
    writeFileSync(join(ws, 'pkg', 'other.md'), 'UNTOUCHED');
    expect(note({})).toBeUndefined(); // the workspace's own is in the system prompt
    const text = note({ touched: [join(ws, 'pkg', 'deep', 'x.ts')] })!;
    expect(text.startsWith(CONTEXT_PREFIX)).toBe(true);
    expect(text).not.toContain('ROOT RULE');
    expect(text.indexOf('Instructions from pkg/AGENTS.md (for work in pkg/')).toBeLessThan(text.indexOf('Instructions from pkg/deep/CLAUDE.md'));
    expect(text).toContain('DEEP RULE');
    const history: Message[] = [{ role: 'user', text }];
    expect(note({ history, touched: [join(ws, 'pkg', 'deep', 'x.ts')] })).toBeUndefined();
    // A file that appears later in a touched folder is sent then.
    mkdirSync(join(ws, 'pkg', 'new'));
    writeFileSync(join(ws, 'pkg', 'new', 'AGENTS.md'), 'NEW RULE');
    const later = note({ history, touched: [join(ws, 'pkg', 'deep', 'x.ts'), join(ws, 'pkg', 'new', 'y.ts')] })!;
    expect(later).toContain('NEW RULE');
    expect(later).not.toContain('PKG RULE');
  });

  it('a new approval preset or sandbox is said in a context message, once', () => {
    const text = note({ approval: 'suggest' })!;
    expect(text).toMatch(/^Approval preset: suggest/m);
    expect(note({ approval: 'suggest', history: [{ role: 'user', text }] })).toBeUndefined();
    expect(note({ approval: 'auto', history: [{ role: 'user', text }] })).toMatch(/^Approval preset: auto/m);
    expect(note({ sandbox: 'read-only' })).toMatch(/^Sandbox: read-only[^\n]*\nNetwork for commands: none/m);
    // A user's own words that look like one are not ferret's.
    expect(note({ approval: 'suggest', history: [{ role: 'user', text: 'Approval preset: suggest' }] })).toMatch(/^Approval preset: suggest/m);
  });

  it('an instruction file that is a FIFO never blocks; a long one is cut, not dropped', () => {
    mkdirSync(join(ws, 'pkg', 'fifo'), { recursive: true });
    execFileSync('mkfifo', [join(ws, 'pkg', 'fifo', 'AGENTS.md')]);
    expect(note({ touched: [join(ws, 'pkg', 'fifo', 'x.ts')] })).toBeUndefined();
    writeFileSync(join(ws, 'pkg', 'AGENTS.md'), 'y'.repeat(2_000_000));
    const p = note({ touched: [join(ws, 'pkg', 'x.ts')] })!;
    expect(p).toContain('y'.repeat(32_000));
    expect(p).not.toContain('y'.repeat(32_001));
    expect(p).toContain('read pkg/AGENTS.md for the rest');
  });

  it('follows a symlinked instruction file only to a file in the workspace, never into ferret state or elsewhere', () => {
    const state = mkdtempSync(join(tmpdir(), 'ferret-sp-state-'));
    const outside = mkdtempSync(join(tmpdir(), 'ferret-sp-out-'));
    try {
      // ferret's state roots: its home, and one inside the workspace (CHIMERA_HOME=./state).
      const facts = createHostFacts({ env: {}, stateRoots: [state, join(ws, 'pkg', 'state')] });
      mkdirSync(join(state, 'ferret'), { recursive: true });
      writeFileSync(join(state, 'ferret', 'config.json'), '{"apiKey":"SECRET-KEY"}');
      writeFileSync(join(outside, 'notes'), 'OUTSIDE TEXT');
      for (const d of ['a', 'b', 'c']) mkdirSync(join(ws, 'pkg', d), { recursive: true });
      writeFileSync(join(ws, 'pkg', 'RULES.md'), 'LINKED RULE');
      symlinkSync('../RULES.md', join(ws, 'pkg', 'a', 'AGENTS.md'));
      symlinkSync(join(state, 'ferret', 'config.json'), join(ws, 'pkg', 'AGENTS.md'));
      symlinkSync(join(outside, 'notes'), join(ws, 'pkg', 'b', 'CLAUDE.md'));
      const inner = join(ws, 'pkg', 'state');
      mkdirSync(join(inner, 'ferret'), { recursive: true });
      writeFileSync(join(inner, 'ferret', 'config.json'), '{"apiKey":"INNER-SECRET"}');
      symlinkSync('../state/ferret/config.json', join(ws, 'pkg', 'c', 'AGENTS.md'));
      const r = new InstructionReader(ws, facts, instructionNames(undefined));
      const p = note({ reader: r, touched: [join(ws, 'pkg', 'a', 'x.ts'), join(ws, 'pkg', 'b', 'y.ts'), join(ws, 'pkg', 'c', 'z.ts')] })!;
      expect(p).toContain('LINKED RULE');
      for (const secret of ['INNER-SECRET', 'SECRET-KEY', 'OUTSIDE TEXT']) expect(p).not.toContain(secret);
    } finally {
      rmSync(state, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('a session keeps its system prompt', () => {
  const { fresh, script } = scratch('ferret-sp-core-');
  const keep = closeAfterEach();

  it('byte-identical across the calls of a session; a touched folder\'s file and an approval change arrive as logged messages; a mode change switches the variant', async () => {
    const home = fresh('home');
    const ws = fresh('ws');
    mkdirSync(join(ws, 'pkg'));
    writeFileSync(join(ws, 'CLAUDE.md'), 'ROOT CLAUDE RULE');
    writeFileSync(join(ws, 'pkg', 'AGENTS.md'), 'PKG RULE');
    writeFileSync(join(ws, 'pkg', 'a.txt'), 'alpha');
    const core = keep(createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: ws, sandbox: 'workspace-write', approval: 'auto', config: ConfigSchema.parse({}) }));
    const seen = spyOnModel(core);
    const s = core.manager.create({
      model: script({
        responses: [
          { toolCalls: [{ name: 'read_file', arguments: { path: 'pkg/a.txt' } }] },
          { chunks: ['Read it.'] },
          { chunks: ['Again.'] },
          { chunks: ['A plan.'] },
        ],
      }),
    });
    expect((await s.startTurn('read pkg/a.txt').done).stopReason).toBe('end_turn');
    expect(seen).toHaveLength(2);
    expect(seen[1]!.system).toBe(seen[0]!.system);
    expect(seen[0]!.system).toContain('ROOT CLAUDE RULE');
    expect(seen[0]!.system).toContain('# Environment');
    expect(seen[0]!.system).not.toContain('PKG RULE');
    const noteMsg = seen[1]!.messages.at(-1)!;
    expect(noteMsg).toMatchObject({ role: 'user' });
    expect(noteMsg.role === 'user' && noteMsg.text.startsWith(CONTEXT_PREFIX) && noteMsg.text.includes('PKG RULE')).toBe(true);

    s.setApproval('suggest');
    await s.startTurn('again').done;
    expect(seen[2]!.system).toBe(seen[0]!.system);
    expect(seen[2]!.messages.filter((m) => m.role === 'user' && m.text.startsWith(CONTEXT_PREFIX)).map((m) => (m as { text: string }).text.includes('Approval preset: suggest'))).toEqual([false, true]);

    s.setMode('plan');
    await s.startTurn('plan it').done;
    expect(seen[3]!.system).toMatch(/plan mode/);
    expect(seen[3]!.system).not.toBe(seen[0]!.system);
  });
});
