import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as A from '../fakes/anthropic.js';
import { FakeServer } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import { v1PerTest } from '../support/acp-v1-client.js';

// Edits for every model family, from the built CLI: a GPT/codex model is offered apply_patch (and
// not the replacement tools), a Claude model the reverse, on what each vendor's fake server
// records; a three-file patch reaches an official ACP v1 client as three diffs on one call.

type Json = Record<string, unknown>;
const PATCH = ['*** Begin Patch', '*** Add File: src/new.ts', '+export const n = 1;', '*** Update File: src/a.ts', '@@', '-export const a = 1;', '+export const a = 2;', '*** Delete File: old.md', '*** End Patch'].join('\n');

describe('edit tools per model family (fake vendor servers, ACP v1 official client)', () => {
  const { env, start } = v1PerTest();
  let fake: FakeServer;
  const config = (providers: Json, extra: Json = {}) => {
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers, ...extra }));
  };
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.ws, 'src'), { recursive: true });
    writeFileSync(join(env.ws, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(env.ws, 'old.md'), '# old\n');
  });
  afterEach(() => fake.close());
  const offered = (i: number) => ((fake.requests[i]!.body['tools'] as Json[]) ?? []).map((t) => t['name'] as string);

  it('gpt-5-codex is offered apply_patch; its three-file patch applies, and the client sees one call with three diffs', async () => {
    config({ openai: { type: 'openai', baseURL: `${fake.url}/v1` } });
    const args = JSON.stringify({ patch: PATCH });
    fake.reply(
      { steps: [R.created, R.callAdded(0, 'call_p', 'apply_patch'), R.callArgs(0, args), R.callDone(0, 'call_p', 'apply_patch', args), R.completed({ input: 100, cached: 0, output: 20, reasoning: 0 })] },
      { steps: [R.created, R.messageAdded(0), R.textDelta(0, 'Patched.'), R.messageDone(0, 'Patched.'), R.completed({ input: 150, cached: 0, output: 5, reasoning: 0 })] },
    );
    const c = start(['--model', 'openai/gpt-5-codex', '--approval', 'full-auto'], { OPENAI_API_KEY: 'sk-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'bump a, add new, drop old' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(offered(0)).toContain('apply_patch');
    expect(offered(0)).not.toContain('edit_file');
    expect(offered(0)).not.toContain('write_file');
    expect(JSON.stringify(fake.requests[0]!.body['instructions'] ?? fake.requests[0]!.body['input'])).toContain('apply_patch');

    expect(readFileSync(join(env.ws, 'src', 'a.ts'), 'utf8')).toBe('export const a = 2;\n');
    expect(readFileSync(join(env.ws, 'src', 'new.ts'), 'utf8')).toBe('export const n = 1;\n');
    expect(existsSync(join(env.ws, 'old.md'))).toBe(false);

    const updates = c.of(s.sessionId).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'tool_call_update' }> => u.sessionUpdate === 'tool_call_update' && u.toolCallId === 'call_p');
    const diffs = updates.flatMap((u) => u.content ?? []).filter((x) => x.type === 'diff');
    const last = updates.filter((u) => u.content?.some((x) => x.type === 'diff')).at(-1)!;
    expect(last.content!.map((d) => d.type === 'diff' && [d.path.slice(env.ws.length + 1), d.oldText, d.newText])).toEqual([
      ['src/new.ts', null, 'export const n = 1;\n'],
      ['src/a.ts', 'export const a = 1;\n', 'export const a = 2;\n'],
      ['old.md', '# old\n', ''],
    ]);
    expect(diffs.length).toBeGreaterThanOrEqual(3);
    expect(updates.at(-1)).toMatchObject({ status: 'completed' });
    // The model is told what changed.
    const input = fake.requests[1]!.body['input'] as Json[];
    expect(JSON.stringify(input.find((i) => i['type'] === 'function_call_output'))).toContain('A src/new.ts\\nM src/a.ts\\nD old.md');
  });

  it('claude is offered edit_file, multi_edit and write_file, and not apply_patch', async () => {
    config({ anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } });
    fake.reply({ steps: [A.messageStart({ input: 10 }), A.textStart(0), A.textDelta(0, 'Hi.'), A.blockStop(0), A.messageDelta('end_turn', 2), A.messageStop] });
    const c = start(['--model', 'anthropic/claude-sonnet-4-5'], { ANTHROPIC_API_KEY: 'sk-ant-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(offered(0)).toEqual(expect.arrayContaining(['edit_file', 'multi_edit', 'write_file']));
    expect(offered(0)).not.toContain('apply_patch');
    expect(JSON.stringify(fake.requests[0]!.body['system'])).not.toContain('apply_patch');
  });

  it('config.json editTools "apply_patch" gives a Claude model apply_patch instead of the replacement tools', async () => {
    config({ anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } }, { editTools: 'apply_patch' });
    fake.reply({ steps: [A.messageStart({ input: 10 }), A.textStart(0), A.textDelta(0, 'Hi.'), A.blockStop(0), A.messageDelta('end_turn', 2), A.messageStop] });
    const c = start(['--model', 'anthropic/claude-sonnet-4-5'], { ANTHROPIC_API_KEY: 'sk-ant-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(offered(0)).toContain('apply_patch');
    for (const id of ['edit_file', 'multi_edit', 'write_file']) expect(offered(0)).not.toContain(id);
  });
});
