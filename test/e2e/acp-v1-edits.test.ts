import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { createFerretClient } from '../../clients/typescript/src/index.mjs';
import { v1PerTest, type V1Client } from '../support/acp-v1-client.js';
import { readEvents } from '../support/eventlog.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { SseClient, type SseFrame } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

// The edit tools through the built CLI, a scripted model and the official ACP v1 client (and an
// SSE reader): apply_patch applies all or nothing with one diff per file (a delete and a move
// marked in _meta), one file named two ways is refused, a bad hunk is named with its patch line,
// multi_edit applies in order, an indentation-only difference is forgiven and said, and an edit of
// a file bash changed since it was read is refused. (test/e2e/edits.test.ts covers which model
// family is offered which tools, against fake vendor servers.)

type Update = acp.SessionUpdate;
type Call = { name: string; arguments: unknown };
const tag = <T extends Update['sessionUpdate']>(ups: Update[], t: T) => ups.filter((u): u is Extract<Update, { sessionUpdate: T }> => u.sessionUpdate === t);
const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

/** The tool results of the session's last tool message, as its log holds them: what the model reads next. */
function resultsLogged(home: string, sessionId: string): { callId: string; status: string; output: string }[] {
  const msgs = readEvents(home, sessionId).filter((e) => e['type'] === 'message' && e['data'].message.role === 'tool');
  return msgs.at(-1)!['data'].message.results;
}

/** The call's last update: how the client shows it when it ends. */
const lastOf = (ups: Update[], id: string) => tag(ups, 'tool_call_update').filter((u) => u.toolCallId === id).at(-1)!;
const textOf = (u: { content?: acp.ToolCallContent[] | null }) => (u.content ?? []).map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : '')).join('');

describe('edits over ACP v1 (official SDK client, scripted model)', () => {
  const { env, start } = v1PerTest();

  async function session(args: string[] = ['--approval', 'full-auto']) {
    writeScript(env.ws, 'model.json', { responses: [] });
    const c: V1Client = start(['--model', `scripted:${join(env.ws, 'model.json')}`, ...args]);
    const responses: unknown[] = [];
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const turn = async (calls: Call[]) => {
      responses.push({ chunks: ['calling'], toolCalls: calls }, { chunks: ['ok'] });
      writeScript(env.ws, 'model.json', { responses });
      const before = c.of(s.sessionId).length;
      const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'go' }] });
      expect(r.stopReason).toBe('end_turn');
      const ups = c.of(s.sessionId).slice(before);
      return { ups, ids: tag(ups, 'tool_call').map((x) => x.toolCallId) };
    };
    return { c, turn, id: s.sessionId };
  }

  it('apply_patch adds one file, updates another, deletes a third and moves a fourth; the client sees one diff per file', async () => {
    writeFileSync(join(env.ws, 'a.ts'), 'const a = 1;\nconst b = 2;\n');
    writeFileSync(join(env.ws, 'old.txt'), 'bye\n');
    writeFileSync(join(env.ws, 'from.txt'), 'moving\n');
    const { c, turn, id: sessionId } = await session();
    const t = await turn([
      {
        name: 'apply_patch',
        arguments: { patch: patch('*** Add File: new.txt', '+hello', '*** Update File: a.ts', '@@', ' const a = 1;', '-const b = 2;', '+const b = 3;', '*** Delete File: old.txt', '*** Update File: from.txt', '*** Move to: to.txt') },
      },
    ]);
    expect(readFileSync(join(env.ws, 'new.txt'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(env.ws, 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
    expect(existsSync(join(env.ws, 'old.txt'))).toBe(false);
    expect([existsSync(join(env.ws, 'from.txt')), readFileSync(join(env.ws, 'to.txt'), 'utf8')]).toEqual([false, 'moving\n']);
    // Written through the editor's buffers; the delete and the move's removal on disk (ACP has no delete request).
    expect(c.fsWrites).toEqual([join(env.ws, 'new.txt'), join(env.ws, 'a.ts'), join(env.ws, 'to.txt')]);
    const id = t.ids[0]!;
    const start = tag(t.ups, 'tool_call')[0]!;
    expect(start).toMatchObject({ kind: 'edit', title: 'Patch 5 files' });
    expect(lastOf(t.ups, id).status).toBe('completed');
    // Each update's content replaces the one before: the last that has content is what the client shows.
    const shown = tag(t.ups, 'tool_call_update').filter((u) => u.toolCallId === id && u.content).at(-1)!;
    expect(tag(t.ups, 'tool_call_update').filter((u) => u.toolCallId === id && u.content?.some((x) => x.type === 'diff'))).toHaveLength(5); // one per file as it lands, and the finished card keeps all four
    const diffs = (shown.content ?? []).filter((x): x is Extract<acp.ToolCallContent, { type: 'diff' }> => x.type === 'diff');
    expect(diffs.map((d) => d.path)).toEqual(['new.txt', 'a.ts', 'old.txt', 'to.txt'].map((p) => join(env.ws, p)));
    expect(diffs[0]).toMatchObject({ oldText: null, newText: 'hello\n' });
    expect(diffs[1]).toMatchObject({ oldText: 'const a = 1;\nconst b = 2;\n', newText: 'const a = 1;\nconst b = 3;\n' });
    expect(diffs[2]).toMatchObject({ oldText: 'bye\n', newText: '', _meta: { 'ferret.dev': { changeKind: 'delete' } } });
    expect(diffs[3]).toMatchObject({ oldText: 'moving\n', newText: 'moving\n', _meta: { 'ferret.dev': { changeKind: 'move', movedFrom: join(env.ws, 'from.txt') } } });
    // The result the model reads next names each file's change.
    expect(resultsLogged(env.home, sessionId)[0]!.output).toBe('Applied the patch:\nA new.txt\nM a.ts\nD old.txt\nR from.txt -> to.txt');
  });

  it('one file named two ways in one patch is refused on its real path, and nothing changes', async () => {
    writeFileSync(join(env.ws, 'a.txt'), 'one\n');
    const { turn } = await session();
    const t = await turn([{ name: 'apply_patch', arguments: { patch: patch('*** Update File: a.txt', '-one', '+ONE', '*** Delete File: ./a.txt') } }]);
    const last = lastOf(t.ups, t.ids[0]!);
    expect(last.status).toBe('failed');
    expect(textOf(last)).toContain("apply_patch: ./a.txt and a.txt are the same file; put all of a file's changes under one header. Nothing was changed.");
    expect(readFileSync(join(env.ws, 'a.txt'), 'utf8')).toBe('one\n');
  });

  it('a patch with one bad hunk changes nothing, and the result names the hunk', async () => {
    writeFileSync(join(env.ws, 'a.txt'), 'one\n');
    writeFileSync(join(env.ws, 'b.txt'), 'two\n');
    const { turn } = await session();
    const t = await turn([{ name: 'apply_patch', arguments: { patch: patch('*** Update File: a.txt', '-one', '+ONE', '*** Update File: b.txt', '-three', '+THREE', '*** Delete File: a.txt') } }]);
    const last = lastOf(t.ups, t.ids[0]!);
    expect(last.status).toBe('failed');
    expect(textOf(last)).toContain('apply_patch: a.txt appears twice in the patch');
    const u = await turn([{ name: 'apply_patch', arguments: { patch: patch('*** Update File: a.txt', '-one', '+ONE', '*** Update File: b.txt', '-three', '+THREE') } }]);
    expect(textOf(lastOf(u.ups, u.ids[0]!))).toContain('apply_patch: b.txt, hunk 1 (patch line 6): its lines were not found');
    expect(textOf(lastOf(u.ups, u.ids[0]!))).toContain('Nothing was changed.');
    expect(readFileSync(join(env.ws, 'a.txt'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(env.ws, 'b.txt'), 'utf8')).toBe('two\n');
    expect(tag(u.ups, 'tool_call_update').flatMap((x) => x.content ?? []).filter((x) => x.type === 'diff')).toEqual([]);
  });

  it('multi_edit applies three replacements in order; an indentation-only difference succeeds and says so', async () => {
    writeFileSync(join(env.ws, 'f.txt'), 'alpha gamma x x\n');
    writeFileSync(join(env.ws, 'g.py'), 'def f():\n    if x:\n        go()\n');
    const { turn, id } = await session();
    const edits = [
      { old_string: 'alpha', new_string: 'beta' },
      { old_string: 'beta gamma', new_string: 'delta' },
      { old_string: 'x', new_string: 'y', replace_all: true },
    ];
    const t = await turn([
      { name: 'multi_edit', arguments: { path: 'f.txt', edits } },
      { name: 'edit_file', arguments: { path: 'g.py', old: 'if x:\n    go()', new: 'if x:\n    stop()' } },
    ]);
    expect(readFileSync(join(env.ws, 'f.txt'), 'utf8')).toBe('delta y y\n');
    expect(readFileSync(join(env.ws, 'g.py'), 'utf8')).toBe('def f():\n    if x:\n        stop()\n');
    expect(t.ids.map((id) => lastOf(t.ups, id).status)).toEqual(['completed', 'completed']);
    // The result the model reads says the forgiving match was used.
    const sent = resultsLogged(env.home, id);
    expect(sent[1]!.output).toContain('(the text matched only when ignoring differences in indentation; the replacement was adjusted to the file)');
  });

  it('an edit after bash changed the file since the last read is refused, telling the model to read it again', async () => {
    writeFileSync(join(env.ws, 'f.txt'), 'head\n');
    const { turn } = await session();
    await turn([{ name: 'read_file', arguments: { path: 'f.txt' } }]);
    await turn([{ name: 'bash', arguments: { command: 'echo tail >> f.txt' } }]);
    const t = await turn([{ name: 'edit_file', arguments: { path: 'f.txt', old: 'head', new: 'HEAD' } }]);
    const last = lastOf(t.ups, t.ids[0]!);
    expect(last.status).toBe('failed');
    expect(textOf(last)).toMatch(/f\.txt changed since you last read or wrote it .*read it again with read_file/);
    expect(readFileSync(join(env.ws, 'f.txt'), 'utf8')).toBe('head\ntail\n');
  });
});

describe('apply_patch over HTTP + SSE', () => {
  const { env, startHttp } = ferretPerTest();
  const TOKEN = 'tok-edits-0123456789';

  it('an SSE reader gets one code/diff frame per file, with its change kind', async () => {
    writeFileSync(join(env.ws, 'a.txt'), 'one\n');
    writeFileSync(join(env.ws, 'gone.txt'), 'x\n');
    const model = writeScript(env.home, 'model.json', {
      responses: [
        { toolCalls: [{ name: 'apply_patch', arguments: { input: patch('*** Add File: n.txt', '+n', '*** Update File: a.txt', '*** Move to: b.txt', '-one', '+two', '*** Delete File: gone.txt') } }] },
        { chunks: ['Done.'] },
      ],
    });
    const { url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'full-auto'], { FERRET_SERVER_TOKEN: TOKEN });
    const ferret = createFerretClient({ baseUrl: url, token: TOKEN });
    const id = (await ferret.createSession({})).sessionId;
    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;
    await ferret.sendMessage(id, 'go');
    await sse.waitFor((fs: SseFrame[]) => fs.some((f) => f.event === 'result'));
    const diffs = sse.frames.filter((f: SseFrame) => f.event === 'code/diff').map((f: SseFrame) => f.data as Record<string, unknown>);
    expect(diffs.map((d) => [d['path'], d['changeKind']])).toEqual([
      [join(env.ws, 'n.txt'), 'add'],
      [join(env.ws, 'b.txt'), 'move'],
      [join(env.ws, 'gone.txt'), 'delete'],
    ]);
    expect(diffs[1]!['movedFrom']).toBe(join(env.ws, 'a.txt'));
    const loops = sse.frames.filter((f: SseFrame) => f.event === 'loop_event').map((f: SseFrame) => f.data as Record<string, unknown>).filter((u) => u['kind'] === 'file_edit');
    expect(loops.map((u) => u['change_kind'])).toEqual(['add', 'move', 'delete']);
    sse.close();
  });
});
