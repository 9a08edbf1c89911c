import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ApprovalPreset, SessionEvent } from '../../protocol/index.js';
import { createCore, type CoreInternals as Core } from '../create-core.js';
import type { LiveSession as Session } from '../sessions/live-session.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from '../test-kit.js';
import { Places } from './places.js';

// The task tool as a client sees it: a child loop with its own context, its events under the
// parent's call, its cost in the parent's total, Stop reaching both.

const { fresh, script } = scratch('ferret-subagent-');
const keep = closeAfterEach();

function newCore(approval: ApprovalPreset = 'auto'): { core: Core; ws: string } {
  const ws = fresh('ws');
  const core = createCore({ logger: pino({ level: 'silent' }), home: fresh('home'), env: {}, cwd: ws, sandbox: 'workspace-write', approval });
  keep(core);
  return { core, ws };
}

function record(s: Session): SessionEvent[] {
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  return events;
}

const usage = (input: number, output: number) => ({ input, output, cache: 0, reasoning: 0 });

describe('the task tool', () => {
  it('runs a child that greps and reads in its own context; the parent gets only its answer', async () => {
    const { core, ws } = newCore();
    writeFileSync(join(ws, 'parser.ts'), 'export function parseLine(s: string) {\n  return s.trim();\n}\n');
    const seen = spyOnModel(core);
    const s = core.manager.create({
      model: script({
        pricing: { input: 1, output: 2 },
        responses: [
          { chunks: ['Asking a helper.'], toolCalls: [{ name: 'task', arguments: { description: 'find parseLine', prompt: 'Where is parseLine defined?' } }], usage: usage(100, 10) },
          { chunks: ['It is in parser.ts.'], usage: usage(200, 5) },
        ],
        subagents: {
          'find parseLine': [
            { chunks: ['Searching.'], toolCalls: [{ name: 'grep', arguments: { pattern: 'function parseLine' } }], usage: usage(1000, 20) },
            { toolCalls: [{ name: 'read_file', arguments: { path: 'parser.ts' } }], usage: usage(1500, 10) },
            { chunks: ['parseLine is defined at parser.ts:1.'], usage: usage(2000, 30) },
          ],
        },
      }),
    });
    const events = record(s);
    const result = await s.startTurn('where is parseLine?').done;

    expect(result.stopReason).toBe('end_turn');
    expect(result.message.text).toBe('It is in parser.ts.');
    // The child's calls are the parent's events under the task call, with ids of their own.
    const starts = ofType(events, 'tool_call_start');
    expect(starts.map((e) => [e.data.callId, e.data.tool, e.data.parentCallId])).toEqual([
      ['call_1_1', 'task', undefined],
      ['call_1_1:call_1_1', 'grep', 'call_1_1'],
      ['call_1_1:call_2_1', 'read_file', 'call_1_1'],
    ]);
    const ends = ofType(events, 'tool_call_end');
    expect(ends.map((e) => [e.data.callId, e.data.status, e.data.parentCallId])).toEqual([
      ['call_1_1:call_1_1', 'completed', 'call_1_1'],
      ['call_1_1:call_2_1', 'completed', 'call_1_1'],
      ['call_1_1', 'completed', undefined],
    ]);
    expect(ends[0]!.data.output).toContain('parser.ts');
    expect(ends[2]!.data.output).toBe('parseLine is defined at parser.ts:1.');
    // Its words are subagent_chunk, never the parent's own reply.
    expect(ofType(events, 'subagent_chunk').map((e) => [e.data.parentCallId, e.data.text])).toEqual([
      ['call_1_1', 'Searching.'],
      ['call_1_1', 'parseLine is defined at parser.ts:1.'],
    ]);
    expect(ofType(events, 'message_chunk').map((e) => e.data.text)).toEqual(['Asking a helper.', 'It is in parser.ts.']);

    // The child's request: its own system prompt, only the task's prompt, read-only tools.
    const child = seen.filter((r) => r.subagent !== undefined);
    expect(child).toHaveLength(3);
    expect(child[0]!.subagent).toEqual({ description: 'find parseLine' });
    expect(child[0]!.system).toMatch(/^You are a subagent of ferret/);
    expect(child[0]!.messages).toEqual([{ role: 'user', text: 'Where is parseLine defined?' }]);
    expect(child[0]!.tools.map((t) => t.name).sort()).toEqual(['glob', 'grep', 'list_dir', 'read_file']);
    // The parent's next request holds the task's result and none of the child's steps.
    const parent = seen.filter((r) => r.subagent === undefined);
    expect(parent).toHaveLength(2);
    expect(parent[0]!.tools.map((t) => t.name)).toContain('task');
    const after = JSON.stringify(parent[1]!.messages);
    expect(after).toContain('parseLine is defined at parser.ts:1.');
    expect(after).not.toContain('Searching.');
    expect(after).not.toContain('function parseLine');
    expect(parent[1]!.messages.at(-1)).toEqual({ role: 'tool', results: [{ callId: 'call_1_1', name: 'task', status: 'completed', output: 'parseLine is defined at parser.ts:1.' }] });

    // The child's cost is in the session's total; its calls are no steps of the parent's script.
    const costs = ofType(events, 'cost_update');
    expect(costs.filter((e) => e.data.parentCallId === 'call_1_1')).toHaveLength(3);
    expect(s.state.usage).toEqual({ input: 100 + 200 + 1000 + 1500 + 2000, output: 10 + 5 + 20 + 10 + 30, cache: 0, reasoning: 0 });
    expect(s.state.costUsd).toBeCloseTo(((100 + 200 + 4500) * 1 + (15 + 60) * 2) / 1e6, 12);
    expect(s.state.modelCalls).toBe(2);
  });

  it('runs a named agent from .ferret/agents with its prompt and tools, listed in the tool description', async () => {
    const { core, ws } = newCore();
    mkdirSync(join(ws, '.ferret', 'agents'), { recursive: true });
    writeFileSync(join(ws, '.ferret', 'agents', 'reviewer.md'), '---\ndescription: Reviews a file for bugs\ntools: Read, list_dir\n---\nYou review code and list concrete bugs.\n');
    writeFileSync(join(ws, 'a.py'), 'print(1)\n');
    const seen = spyOnModel(core);
    const s = core.manager.create({
      model: script({
        responses: [{ toolCalls: [{ name: 'task', arguments: { description: 'review a.py', prompt: 'Review a.py', agent: 'reviewer' } }] }, { chunks: ['ok'] }],
        subagents: { reviewer: [{ chunks: ['No bugs.'] }] },
      }),
    });
    const events = record(s);
    await s.startTurn('review').done;

    const task = seen[0]!.tools.find((t) => t.name === 'task')!;
    expect(task.description).toContain('- reviewer: Reviews a file for bugs');
    const child = seen.find((r) => r.subagent)!;
    expect(child.subagent).toEqual({ description: 'review a.py', agent: 'reviewer' });
    expect(child.system).toContain('You review code and list concrete bugs.');
    expect(child.tools.map((t) => t.name).sort()).toEqual(['list_dir', 'read_file']);
    expect(ofType(events, 'tool_call_end').at(-1)!.data).toMatchObject({ callId: 'call_1_1', status: 'completed', output: 'No bugs.' });
  });

  it('an unknown agent is a failed call that names the known ones', async () => {
    const { core } = newCore();
    const s = core.manager.create({
      model: script({ responses: [{ toolCalls: [{ name: 'task', arguments: { description: 'x', prompt: 'y', agent: 'nobody' } }] }, { chunks: ['ok'] }] }),
    });
    const events = record(s);
    await s.startTurn('go').done;
    expect(ofType(events, 'tool_call_end')[0]!.data).toMatchObject({ status: 'failed', output: expect.stringContaining('no agent named "nobody"') });
  });

  it("a child's write is asked about like any other, under the task call", async () => {
    const { core, ws } = newCore('suggest');
    mkdirSync(join(ws, '.ferret', 'agents'), { recursive: true });
    writeFileSync(join(ws, '.ferret', 'agents', 'fixer.md'), '---\ndescription: Fixes things\ntools: read_file, write_file\n---\nFix it.\n');
    const s = core.manager.create({
      model: script({
        responses: [{ toolCalls: [{ name: 'task', arguments: { description: 'fix', prompt: 'write fixed.txt', agent: 'fixer' } }] }, { chunks: ['done'] }],
        subagents: { fixer: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'fixed.txt', content: 'yes\n' } }] }, { chunks: ['Wrote it.'] }] },
      }),
    });
    const events: SessionEvent[] = [];
    s.subscribe((e) => {
      events.push(e);
      if (e.type === 'permission_requested') queueMicrotask(() => s.respondPermission(e.data.requestId, 'allow', 'tester'));
    });
    await s.startTurn('fix it').done;
    const asked = ofType(events, 'permission_requested');
    expect(asked.map((e) => [e.data.requestId, e.data.callId, e.data.tool, e.data.parentCallId])).toEqual([['perm_call_1_1:call_1_1', 'call_1_1:call_1_1', 'write_file', 'call_1_1']]);
    expect(readFileSync(join(ws, 'fixed.txt'), 'utf8')).toBe('yes\n');
    expect(ofType(events, 'tool_call_end').at(-1)!.data).toMatchObject({ status: 'completed', output: 'Wrote it.' });
  });

  it('in plan mode a child whose agent asks for writes is offered only reads, and a write it tries is denied', async () => {
    const { core, ws } = newCore();
    mkdirSync(join(ws, '.ferret', 'agents'), { recursive: true });
    writeFileSync(join(ws, '.ferret', 'agents', 'fixer.md'), '---\ndescription: Fixes things\ntools: read_file, write_file\n---\nFix it.\n');
    const seen = spyOnModel(core);
    const s = core.manager.create({
      mode: 'plan',
      model: script({
        responses: [{ toolCalls: [{ name: 'task', arguments: { description: 'fix', prompt: 'write fixed.txt', agent: 'fixer' } }] }, { chunks: ['done'] }],
        subagents: { fixer: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'fixed.txt', content: 'yes\n' } }] }, { chunks: ['Could not.'] }] },
      }),
    });
    const events = record(s);
    await s.startTurn('fix it').done;
    expect(seen.find((r) => r.subagent)!.tools.map((t) => t.name)).toEqual(['read_file']);
    expect(ofType(events, 'tool_call_end').map((e) => [e.data.tool, e.data.status])).toEqual([['write_file', 'denied'], ['task', 'completed']]);
    expect(() => readFileSync(join(ws, 'fixed.txt'))).toThrow();
  });

  it('Stop ends the child and the parent', async () => {
    const { core } = newCore();
    const s = core.manager.create({
      model: script({
        responses: [{ toolCalls: [{ name: 'task', arguments: { description: 'slow', prompt: 'take your time' } }] }, { chunks: ['never'] }],
        subagents: { slow: [{ chunks: ['thinking', ' more', ' and more'], delayMs: 5000 }] },
      }),
    });
    const events: SessionEvent[] = [];
    s.subscribe((e) => {
      events.push(e);
      if (e.type === 'subagent_chunk') s.cancel();
    });
    const t0 = Date.now();
    const result = await s.startTurn('go').done;
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(result.stopReason).toBe('cancelled');
    expect(ofType(events, 'tool_call_end').map((e) => [e.data.callId, e.data.status])).toEqual([['call_1_1', 'cancelled']]);
    expect(s.status).toBe('idle');
  });

  it('a child out of its time budget fails its call with what it had said', async () => {
    const { core, ws } = newCore();
    mkdirSync(join(ws, '.ferret', 'agents'), { recursive: true });
    writeFileSync(join(ws, '.ferret', 'agents', 'slow.md'), '---\ndescription: Slow\ntimeout_seconds: 0.3\n---\nBe slow.\n');
    const s = core.manager.create({
      model: script({
        responses: [{ toolCalls: [{ name: 'task', arguments: { description: 'slow one', prompt: 'go', agent: 'slow' } }] }, { chunks: ['after'] }],
        subagents: { slow: [{ chunks: ['first words', ' never'], delayMs: 5000 }] },
      }),
    });
    const events = record(s);
    const result = await s.startTurn('go').done;
    expect(result.stopReason).toBe('end_turn');
    const end = ofType(events, 'tool_call_end')[0]!.data;
    expect(end.status).toBe('failed');
    expect(end.output).toMatch(/time budget \(0.3 s\)[\s\S]*first words/);
  });

  it('several task calls in one reply run at once, each with its own script', async () => {
    const { core } = newCore();
    const task = (d: string) => ({ name: 'task', arguments: { description: d, prompt: d } });
    const s = core.manager.create({
      model: script({
        responses: [{ toolCalls: [task('a'), task('b')] }, { chunks: ['both'] }],
        subagents: { a: [{ chunks: ['A1', 'A2'], delayMs: 200 }], b: [{ chunks: ['B1', 'B2'], delayMs: 200 }] },
      }),
    });
    const events = record(s);
    const t0 = Date.now();
    await s.startTurn('go').done;
    const chunks = ofType(events, 'subagent_chunk').map((e) => e.data.text);
    // Interleaved: b started before a finished.
    expect(chunks.indexOf('B1')).toBeLessThan(chunks.indexOf('A2'));
    expect(ofType(events, 'tool_call_end').filter((e) => !e.data.parentCallId).map((e) => e.data.output).sort()).toEqual(['A1A2', 'B1B2']);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe('Places', () => {
  it('lets a fixed number through, hands a freed place to the next waiter, and gives up on abort', async () => {
    const p = new Places(1);
    const first = await p.take(new AbortController().signal);
    const ac = new AbortController();
    const gaveUp = p.take(ac.signal);
    let second: (() => void) | undefined;
    const waiting = p.take(new AbortController().signal).then((r) => (second = r));
    ac.abort();
    expect(await gaveUp).toBeUndefined();
    expect(second).toBeUndefined();
    first!();
    await waiting;
    expect(second).toBeTypeOf('function');
  });
});
