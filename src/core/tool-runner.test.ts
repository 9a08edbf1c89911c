import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../providers/provider.js';
import type { ApprovalPreset, SessionEvent, ToolResult } from '../protocol/index.js';
import { createCore, type CoreInternals as Core } from './create-core.js';
import type { LiveSession as Session } from './sessions/live-session.js';
import { DEFAULT_TOOL_OUTPUT_CAP } from './tool-call/output-cap.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from './test-kit.js';

// The tool runner through real turns: a scripted model asks for tool calls, real files in temp dirs.

const { fresh, script } = scratch('ferret-runner-');
const keep = closeAfterEach();

interface Setup {
  core: Core;
  ws: string;
  session: Session;
  events: SessionEvent[];
  /** What the model received on each call. */
  seen: ModelRequest[];
}

type ScriptedCall = { name: string; arguments: unknown; id?: string };

/** A core, a workspace, and a session whose model asks for `calls` and then says "ok". */
function setup(calls: ScriptedCall[], opts: { approval?: ApprovalPreset } = {}): Setup {
  const home = fresh('home');
  const ws = fresh('ws');
  const core = keep(createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: ws, sandbox: 'workspace-write', approval: opts.approval ?? 'auto' }));
  const seen = spyOnModel(core);
  const session = core.manager.create({ model: script({ responses: [{ chunks: ['calling'], toolCalls: calls }, { chunks: ['ok'] }] }) });
  const events: SessionEvent[] = [];
  session.subscribe((e) => events.push(e));
  return { core, ws, session, events, seen };
}

/** The tool results the model received on its second call. */
function resultsSent(seen: ModelRequest[]): ToolResult[] {
  const last = seen[1]?.messages.at(-1);
  if (last?.role !== 'tool') throw new Error(`the model's second call did not end with tool results: ${JSON.stringify(last)}`);
  return last.results;
}

describe('validation', () => {
  it('an unknown tool fails with the list of the tools there are, and the model is told', async () => {
    const t = setup([{ name: 'no_such_tool', arguments: {} }]);
    const r = await t.session.startTurn('go').done;
    expect(r.stopReason).toBe('end_turn');
    const end = ofType(t.events, 'tool_call_end')[0]!.data;
    expect(end.status).toBe('failed');
    expect(end.output).toBe('unknown tool "no_such_tool"; available: bash, read_file, write_file, edit_file, multi_edit, apply_patch, list_dir, glob, grep, open_file, update_plan, task, process_output, process_input, process_kill, web_fetch');
    expect(ofType(t.events, 'tool_call_start')[0]!.data).toMatchObject({ tool: 'no_such_tool', kind: 'other', title: 'no_such_tool', locations: [] });
    expect(resultsSent(t.seen)).toEqual([{ callId: 'call_1_1', name: 'no_such_tool', status: 'failed', output: end.output }]);
  });

  it('invalid arguments fail naming the field; the tool does not run', async () => {
    const t = setup([
      { name: 'write_file', arguments: { path: 'x.txt', content: 42 } },
      { name: 'read_file', arguments: {} },
    ]);
    await t.session.startTurn('go').done;
    const ends = ofType(t.events, 'tool_call_end').map((e) => e.data);
    expect(ends.map((e) => e.status)).toEqual(['failed', 'failed']);
    expect(ends[0]!.output).toBe('invalid arguments for write_file: field content: Invalid input: expected string, received number');
    expect(ends[1]!.output).toBe('invalid arguments for read_file: field path: Invalid input: expected string, received undefined');
    expect(() => lstatSync(join(t.ws, 'x.txt'))).toThrow(/ENOENT/);
    expect(resultsSent(t.seen).map((r) => r.output)).toEqual(ends.map((e) => e.output));
  });
});

describe('plan mode', () => {
  it('denies write tools (and offers the model only tools that read)', async () => {
    const t = setup([{ name: 'write_file', arguments: { path: 'plan.txt', content: 'no' } }]);
    t.session.setMode('plan');
    await t.session.startTurn('go').done;
    const end = ofType(t.events, 'tool_call_end')[0]!.data;
    expect(end).toMatchObject({ tool: 'write_file', status: 'denied', output: 'the plan agent cannot use write_file: it proposes changes and does not make them' });
    expect(() => lstatSync(join(t.ws, 'plan.txt'))).toThrow(/ENOENT/);
    expect(t.seen[0]!.tools.map((s) => s.name).sort()).toEqual(['glob', 'grep', 'list_dir', 'open_file', 'process_kill', 'process_output', 'read_file', 'task', 'update_plan', 'web_fetch']);
    expect(resultsSent(t.seen)[0]!.status).toBe('denied');
  });
});

describe('the sandbox', () => {
  it('refuses a path outside the workspace: a sandbox_violation event, then the call fails', async () => {
    const outside = fresh('outside');
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    const t = setup([{ name: 'read_file', arguments: { path: join(outside, 'secret.txt') } }]);
    const events = t.events;
    await t.session.startTurn('go').done;

    const real = join(outside, 'secret.txt');
    const reason = `${real} is outside the workspace ${t.ws}`;
    expect(ofType(events, 'sandbox_violation').map((e) => e.data)).toEqual([
      { callId: 'call_1_1', tool: 'read_file', path: real, mode: 'workspace-write', reason },
    ]);
    const end = ofType(events, 'tool_call_end')[0]!.data;
    expect(end).toMatchObject({ status: 'failed', output: `sandbox (workspace-write) refused read_file: ${reason}` });
    expect(end.output).not.toContain('top secret');
    // the violation is reported before the call ends
    const types = events.map((e) => e.type);
    expect(types.indexOf('sandbox_violation')).toBeLessThan(types.indexOf('tool_call_end'));
  });

  it('judges the real path: a symlink in the workspace pointing outside is refused too', async () => {
    const outside = fresh('outside');
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    const t = setup([{ name: 'read_file', arguments: { path: 'innocent.txt' } }]);
    symlinkSync(join(outside, 'secret.txt'), join(t.ws, 'innocent.txt'));
    await t.session.startTurn('go').done;
    expect(ofType(t.events, 'sandbox_violation')[0]!.data.path).toBe(join(outside, 'secret.txt'));
    const end = ofType(t.events, 'tool_call_end')[0]!.data;
    expect(end.status).toBe('failed');
    expect(end.output).not.toContain('top secret');
  });

  it('a bash command runs confined in the workspace and streams its output', async () => {
    const t = setup([{ name: 'bash', arguments: { command: 'echo hello-from-bash; pwd' } }]);
    await t.session.startTurn('go').done;
    const end = ofType(t.events, 'tool_call_end')[0]!.data;
    expect(end).toMatchObject({ tool: 'bash', status: 'completed', exitCode: 0 });
    expect(end.output).toContain('hello-from-bash');
    expect(end.output).toContain(t.ws);
    expect(ofType(t.events, 'tool_call_progress').map((e) => e.data.text).join('')).toContain('hello-from-bash');
  });
});

describe('approval', () => {
  /** Answers the first permission request with `decision`, as a client would. */
  function answer(t: Setup, decision: 'allow' | 'deny'): void {
    t.session.subscribe((e) => {
      if (e.type === 'permission_requested') queueMicrotask(() => t.session.respondPermission(e.data.requestId, decision, 'tester'));
    });
  }

  it('the suggest preset asks before a write; allow lets it run', async () => {
    const t = setup([{ name: 'write_file', arguments: { path: 'ok.txt', content: 'yes' } }], { approval: 'suggest' });
    answer(t, 'allow');
    await t.session.startTurn('go').done;
    expect(ofType(t.events, 'permission_requested').map((e) => e.data)).toEqual([
      { requestId: 'perm_call_1_1', callId: 'call_1_1', tool: 'write_file', args: { path: 'ok.txt', content: 'yes' }, risk: 'medium', reason: 'suggest preset asks before every write', edit: { path: expect.stringMatching(/\/ok\.txt$/), oldText: null, newText: 'yes' } },
    ]);
    expect(ofType(t.events, 'permission_resolved').map((e) => e.data)).toEqual([{ requestId: 'perm_call_1_1', callId: 'call_1_1', decision: 'allow', by: 'tester' }]);
    expect(ofType(t.events, 'tool_call_end')[0]!.data.status).toBe('completed');
    // it runs only after the answer
    expect(t.events.map((e) => e.type).filter((x) => x.startsWith('permission_') || x.startsWith('tool_call_'))).toEqual([
      'tool_call_start', 'permission_requested', 'permission_resolved', 'tool_call_running', 'tool_call_end',
    ]);
    expect(readFileSync(join(t.ws, 'ok.txt'), 'utf8')).toBe('yes');
    expect(t.session.pendingPermissions()).toEqual([]);
    // a second answer to the same request is refused
    expect(() => t.session.respondPermission('perm_call_1_1', 'deny', 'late')).toThrow(expect.objectContaining({ code: 'already_decided' }));
    expect(() => t.session.respondPermission('perm_nope', 'deny', 'x')).toThrow(expect.objectContaining({ code: 'permission_not_found' }));
  });

  it('deny refuses it, and the denied result tells the model not to retry', async () => {
    const t = setup([{ name: 'write_file', arguments: { path: 'no.txt', content: 'no' } }], { approval: 'suggest' });
    answer(t, 'deny');
    const r = await t.session.startTurn('go').done;
    expect(r.stopReason).toBe('end_turn');
    const end = ofType(t.events, 'tool_call_end')[0]!.data;
    expect(end).toMatchObject({ status: 'denied', output: 'the user denied this write_file call; do not retry it, ask the user what to do instead' });
    expect(() => lstatSync(join(t.ws, 'no.txt'))).toThrow(/ENOENT/);
    expect(ofType(t.events, 'tool_call_running')).toEqual([]); // it never ran
    expect(resultsSent(t.seen)).toEqual([{ callId: 'call_1_1', name: 'write_file', status: 'denied', output: end.output }]);
  });

  it('the request waits for an answer: the call has not run while it is pending, and a cancel ends it cancelled', async () => {
    const t = setup([{ name: 'write_file', arguments: { path: 'wait.txt', content: 'w' } }], { approval: 'suggest' });
    const asked = new Promise<void>((resolve) => t.session.subscribe((e) => e.type === 'permission_requested' && resolve()));
    const turn = t.session.startTurn('go');
    await asked;
    expect(t.session.pendingPermissions()).toEqual(['perm_call_1_1']);
    expect(() => lstatSync(join(t.ws, 'wait.txt'))).toThrow(/ENOENT/);
    t.session.cancel();
    expect((await turn.done).stopReason).toBe('cancelled');
    expect(ofType(t.events, 'tool_call_end')[0]!.data).toMatchObject({ status: 'cancelled', output: 'the turn was cancelled while waiting for permission' });
    expect(t.session.pendingPermissions()).toEqual([]);
  });
});

describe('the output cap', () => {
  it('a read_file of a 20 MB one-line file reaches the model capped at 40 KiB, with a note on where it was cut and how to read the rest (no kept copy: it is a file already)', async () => {
    const t = setup([{ name: 'read_file', arguments: { path: 'big.txt' } }]);
    const size = 20 * 1024 * 1024;
    writeFileSync(join(t.ws, 'big.txt'), 'a'.repeat(size - 1) + 'Z');
    await t.session.startTurn('go').done;

    const end = ofType(t.events, 'tool_call_end')[0]!.data;
    expect(end.status).toBe('completed');
    expect(end.capReached).toBe(true);
    const cap = DEFAULT_TOOL_OUTPUT_CAP;
    expect(cap).toBe(40 * 1024);
    const omitted = size - cap;
    const note = `\n[output capped at ${cap} bytes: ${omitted} of ${size} bytes omitted here; read the rest with read_file offset/limit (lines), a smaller range at a time; a single huge line cannot be paged by lines: read parts of it with bash, e.g. \`cut -c1-2000\`]\n`;
    expect(end.output).toContain(note);
    const [head, tail] = end.output.split(note);
    expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBe(cap);
    expect(tail!.endsWith('Z')).toBe(true); // the end of the output is kept
    // the model receives exactly this capped text
    expect(resultsSent(t.seen)[0]!.output).toBe(end.output);
    expect(Buffer.byteLength(end.output)).toBe(cap + Buffer.byteLength(note));
  });

  it('a small result is not cut and carries no capReached', async () => {
    const t = setup([{ name: 'read_file', arguments: { path: 'small.txt' } }]);
    writeFileSync(join(t.ws, 'small.txt'), 'line one\nline two');
    await t.session.startTurn('go').done;
    const end = ofType(t.events, 'tool_call_end')[0]!.data;
    expect(end).toMatchObject({ status: 'completed', output: 'line one\nline two' });
    expect(end.capReached).toBeUndefined();
  });
});

describe('path arguments', () => {
  it('are re-pointed to their real path: a write through a symlink inside the workspace lands on its target, and is reported there', async () => {
    const t = setup([{ name: 'write_file', arguments: { path: 'link.txt', content: 'through the link' } }]);
    mkdirSync(join(t.ws, 'sub'));
    writeFileSync(join(t.ws, 'sub', 'target.txt'), 'old');
    symlinkSync(join(t.ws, 'sub', 'target.txt'), join(t.ws, 'link.txt'));
    await t.session.startTurn('go').done;

    const target = join(t.ws, 'sub', 'target.txt');
    const start = ofType(t.events, 'tool_call_start')[0]!.data;
    expect(start).toMatchObject({ tool: 'write_file', args: { path: 'link.txt' }, kind: 'edit', title: 'Write link.txt', locations: [{ path: target }] });
    const end = ofType(t.events, 'tool_call_end')[0]!.data;
    expect(end.status).toBe('completed');
    expect(end.output.split('\n')[0]).toBe(`Wrote ${target} (16 bytes)`);
    expect(ofType(t.events, 'file_edit').map((e) => [e.data.path, e.data.changeKind, e.data.oldText, e.data.newText])).toEqual([
      [target, 'modify', 'old', 'through the link'],
    ]);
    expect(readFileSync(target, 'utf8')).toBe('through the link');
    expect(lstatSync(join(t.ws, 'link.txt')).isSymbolicLink()).toBe(true); // the link itself is untouched
    // and the touched set (AGENTS.md lookup) holds the real path
    expect([...t.session.state.touched]).toEqual([target]);
  });
});
