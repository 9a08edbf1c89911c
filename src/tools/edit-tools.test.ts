import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createCore } from '../core/create-core.js';
import { hiddenEditTools } from '../core/edit-tools.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from '../core/test-kit.js';
import { ConfigSchema, type SessionEvent } from '../protocol/index.js';

// apply_patch, multi_edit and the stale-read guard through real turns (scripted model, real files).

describe('edits through a turn', () => {
  const { fresh, script } = scratch('ferret-edits-');
  const keep = closeAfterEach();

  async function turn(
    calls: { name: string; arguments: unknown }[],
    files: Record<string, string>,
    sandbox: 'danger-full-access' | 'workspace-write' = 'danger-full-access',
    opts: { approval?: 'auto' | 'full-auto'; config?: unknown } = {},
  ) {
    const ws = fresh('ws');
    for (const [p, c] of Object.entries(files)) writeFileSync(join(ws, p), c);
    const core = keep(createCore({ logger: pino({ level: 'silent' }), home: fresh('home'), env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' }, cwd: ws, sandbox, approval: opts.approval ?? 'full-auto', ...(opts.config !== undefined ? { config: ConfigSchema.parse(opts.config) } : {}) }));
    const seen = spyOnModel(core);
    const responses = [...calls.map((c) => ({ toolCalls: [c] })), { chunks: ['done'] }];
    const session = core.manager.create({ model: script({ responses }) });
    const events: SessionEvent[] = [];
    session.subscribe((e) => {
      events.push(e);
      // A question is answered no: the tests look at what was asked.
      if (e.type === 'permission_requested') setImmediate(() => session.respondPermission(e.data.requestId, 'deny', 'test'));
    });
    await session.startTurn('go').done;
    const ends = ofType(events, 'tool_call_end').map((e) => e.data);
    return { ws, events, ends, seen, read: (p: string) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : null) };
  }

  const PATCH = [
    '*** Begin Patch',
    '*** Add File: new.txt',
    '+brand new',
    '*** Update File: keep.ts',
    '@@ function f() {',
    '-  return 1;',
    '+  return 2;',
    '*** Delete File: old.md',
    '*** End Patch',
  ].join('\n');

  it('apply_patch adds, updates and deletes, with one diff per file', async () => {
    const t = await turn([{ name: 'apply_patch', arguments: { patch: PATCH } }], { 'keep.ts': 'function f() {\n  return 1;\n}\n', 'old.md': '# old\n' });
    expect(t.ends[0]).toMatchObject({ status: 'completed', output: 'Applied the patch:\nA new.txt\nM keep.ts\nD old.md' });
    expect([t.read('new.txt'), t.read('keep.ts'), t.read('old.md')]).toEqual(['brand new\n', 'function f() {\n  return 2;\n}\n', null]);
    expect(ofType(t.events, 'file_edit').map((e) => [e.data.path.slice(t.ws.length + 1), e.data.changeKind])).toEqual([
      ['new.txt', 'add'],
      ['keep.ts', 'modify'],
      ['old.md', 'delete'],
    ]);
    expect(ofType(t.events, 'tool_call_start')[0]!.data.locations.map((l) => l.path.slice(t.ws.length + 1))).toEqual(['new.txt', 'keep.ts', 'old.md']);
  });

  it('a patch with one bad hunk changes nothing and names the hunk', async () => {
    const bad = PATCH.replace('-  return 1;', '-  return 9;');
    const t = await turn([{ name: 'apply_patch', arguments: { input: bad } }], { 'keep.ts': 'function f() {\n  return 1;\n}\n', 'old.md': '# old\n' });
    expect(t.ends[0]!.status).toBe('failed');
    expect(t.ends[0]!.output).toMatch(/^apply_patch: keep.ts, hunk 1 \(patch line 5\): its lines were not found/);
    expect(t.ends[0]!.output).toContain('Nothing was changed.');
    expect([t.read('new.txt'), t.read('keep.ts'), t.read('old.md')]).toEqual([null, 'function f() {\n  return 1;\n}\n', '# old\n']);
    expect(ofType(t.events, 'file_edit')).toEqual([]);
  });

  it('a patch cannot reach outside the workspace', async () => {
    const t = await turn([{ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch' } }], {}, 'workspace-write');
    expect(t.ends[0]!.status).toBe('failed');
    expect(t.ends[0]!.output).toMatch(/^sandbox \(workspace-write\) refused apply_patch/);
    expect(existsSync(join(t.ws, '..', 'escape.txt'))).toBe(false);
  });

  it('a rule written for write_file or edit_file holds for apply_patch and multi_edit', async () => {
    const config = { rules: { deny: ['write_file(.env)', 'edit_file(locked.ts)'] } };
    const patch = await turn([{ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: notes.txt\n+ok\n*** Add File: .env\n+KEY=x\n*** End Patch' } }], {}, 'danger-full-access', { config });
    expect(patch.ends[0]!.status).toBe('denied');
    expect([patch.read('notes.txt'), patch.read('.env')]).toEqual([null, null]);
    const multi = await turn([{ name: 'multi_edit', arguments: { path: 'locked.ts', edits: [{ old_string: 'a', new_string: 'b' }] } }], { 'locked.ts': 'a' }, 'danger-full-access', { config });
    expect(multi.ends[0]!.status).toBe('denied');
  });

  it('every file of a patch is judged: a second file outside the workspace is asked for under auto, not let through by the first', async () => {
    const t = await turn([{ name: 'apply_patch', arguments: { patch: '*** Begin Patch\n*** Add File: inside.txt\n+ok\n*** Add File: ../outside.txt\n+x\n*** End Patch' } }], {}, 'danger-full-access', { approval: 'auto' });
    expect(ofType(t.events, 'permission_requested')).toHaveLength(1);
    expect([t.read('inside.txt'), existsSync(join(t.ws, '..', 'outside.txt'))]).toEqual([null, false]);
  });

  it('multi_edit applies three replacements in order, or none', async () => {
    const ok = await turn([{ name: 'multi_edit', arguments: { path: 'a.ts', edits: [{ old_string: 'one', new_string: '1' }, { old_string: '1 two', new_string: '12' }, { old_string: 'three', new_string: '3' }] } }], { 'a.ts': 'one two three\n' });
    expect(ok.read('a.ts')).toBe('12 3\n');
    expect(ofType(ok.events, 'file_edit')).toHaveLength(1);
    const bad = await turn([{ name: 'multi_edit', arguments: { path: 'a.ts', edits: [{ old_string: 'one', new_string: '1' }, { old_string: 'nope', new_string: 'x' }] } }], { 'a.ts': 'one two three\n' });
    expect(bad.ends[0]!.output).toMatch(/^multi_edit: edit 2 of 2: the text to replace was not found/);
    expect(bad.read('a.ts')).toBe('one two three\n');
  });

  it('an edit whose old text differs only in indentation succeeds and says so', async () => {
    const t = await turn([{ name: 'edit_file', arguments: { path: 'a.py', old: 'if x:\n    go()', new: 'if x:\n    stop()' } }], { 'a.py': 'def f():\n        if x:\n            go()\n' });
    expect(t.read('a.py')).toBe('def f():\n        if x:\n            stop()\n');
    expect(t.ends[0]!.output).toMatch(/^Edited \/.*\/a.py \(1 replacement\) \(the text matched only when ignoring differences in indentation/);
  });

  it('an edit after a command changed the file since it was read is refused; after reading again it goes ahead', async () => {
    const t = await turn(
      [
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'bash', arguments: { command: 'echo appended >> a.txt' } },
        { name: 'edit_file', arguments: { path: 'a.txt', old: 'first', new: 'FIRST' } },
        { name: 'read_file', arguments: { path: 'a.txt' } },
        { name: 'edit_file', arguments: { path: 'a.txt', old: 'first', new: 'FIRST' } },
      ],
      { 'a.txt': 'first\n' },
    );
    expect(t.ends.map((e) => e.status)).toEqual(['completed', 'completed', 'failed', 'completed', 'completed']);
    expect(t.ends[2]!.output).toMatch(/^edit_file: \/.*\/a.txt changed since you last read or wrote it .* read it again with read_file/);
    expect(t.read('a.txt')).toBe('FIRST\nappended\n');
  });
});

describe('the edit tools each model family is offered', () => {
  it('GPT and codex models get apply_patch; Claude and others the replacement tools; config overrides; scripted gets all', () => {
    expect([...hiddenEditTools('openai/gpt-5')]).toEqual(['edit_file', 'multi_edit', 'write_file']);
    expect([...hiddenEditTools('openai/gpt-5-codex')]).toEqual(['edit_file', 'multi_edit', 'write_file']);
    expect([...hiddenEditTools('anthropic/claude-sonnet-4-5')]).toEqual(['apply_patch']);
    expect([...hiddenEditTools('local/qwen3-coder')]).toEqual(['apply_patch']);
    expect([...hiddenEditTools('anthropic/claude-sonnet-4-5', 'apply_patch')]).toEqual(['edit_file', 'multi_edit', 'write_file']);
    expect([...hiddenEditTools('openai/gpt-5', 'all')]).toEqual([]);
    expect([...hiddenEditTools('scripted:/x.json')]).toEqual([]);
  });
});
