import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';

// What the built CLI tells a real provider (the OpenAI Responses API, faked on loopback): the
// system prompt of every call of a session, and the context messages that carry what changed.

/** The system prompt of one recorded Responses request (the SDK sends it as the first input item). */
function systemOf(body: Json): string {
  const first = (body['input'] as Json[])[0]!;
  expect(['system', 'developer']).toContain(first['role']);
  return typeof first['content'] === 'string' ? first['content'] : (first['content'] as Json[]).map((c) => c['text']).join('');
}

/** The user-role texts of one recorded request, in order. */
function userTexts(body: Json): string[] {
  return (body['input'] as Json[])
    .filter((m) => m['role'] === 'user')
    .map((m) => (typeof m['content'] === 'string' ? m['content'] : (m['content'] as Json[]).map((c) => c['text']).join('')));
}

describe('the system prompt a real provider receives (built CLI, fake OpenAI Responses API)', () => {
  const { env, start } = ferretPerTest();
  let fake: FakeServer;
  let srv: FerretClient;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }));
    // No AGENTS.md at the top: CLAUDE.md is read instead; pkg/ has its own AGENTS.md.
    writeFileSync(join(env.ws, 'CLAUDE.md'), 'Always answer in haiku.\n');
    mkdirSync(join(env.ws, 'pkg'));
    writeFileSync(join(env.ws, 'pkg', 'AGENTS.md'), 'Use tabs in pkg.\n');
    writeFileSync(join(env.ws, 'pkg', 'a.txt'), 'alpha\n');
    srv = start(['--model', 'openai/gpt-5-codex'], { OPENAI_API_KEY: 'sk-o' });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('a tool call then an answer: both calls carry the same system prompt, with the environment block, the mode guidance and CLAUDE.md; pkg/AGENTS.md comes as a context message', async () => {
    const usage = { input: 100, cached: 0, output: 10, reasoning: 0 };
    fake.reply(
      { steps: [R.created, R.callAdded(0, 'call_a', 'read_file'), R.callArgs(0, '{"path":"pkg/a.txt"}'), R.callDone(0, 'call_a', 'read_file', '{"path":"pkg/a.txt"}'), R.completed(usage)] },
      { steps: [R.created, R.messageAdded(0), R.textDelta(0, 'Alpha.'), R.messageDone(0, 'Alpha.'), R.completed(usage)] },
    );
    execFileSync('git', ['init', '-q', '-b', 'trunk', env.ws]);
    const s = await srv.call('session/new', {});
    const id = s['sessionId'] as string;
    expect(await srv.call('session/message', { sessionId: id, text: 'what is in pkg/a.txt?' })).toMatchObject({ stopReason: 'end_turn', message: { text: 'Alpha.' } });

    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests.map((r) => systemOf(r.body));
    expect(second).toBe(first); // byte-identical: the provider's prompt cache can hit
    expect(first!.length).toBeGreaterThan(6000);
    expect(first).toContain('# Working in a repository');
    expect(first).toContain('Never push');
    expect(first).toContain('# Environment');
    expect(first).toContain(`Workspace: ${env.ws}`);
    expect(first).toMatch(/^Date: \d{4}-\d{2}-\d{2}$/m);
    expect(first).toContain(`Git: repository at ${env.ws} (the workspace); branch trunk (no commits yet); 2 untracked (at the start of the session)`);
    expect(first).toMatch(/^Sandbox: workspace-write/m);
    expect(first).toMatch(/^Network for commands: none/m);
    expect(first).toMatch(/^Approval preset: auto/m);
    expect(first).toContain('## CLAUDE.md\nAlways answer in haiku.');
    expect(first).not.toContain('Use tabs in pkg.');

    // The folder the tool touched: its AGENTS.md joins the conversation, not the system prompt.
    expect(userTexts(fake.requests[0]!.body)).toEqual(['what is in pkg/a.txt?']);
    const notes = userTexts(fake.requests[1]!.body).slice(1);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^\[ferret context: written by ferret, not by the person\]\nInstructions from pkg\/AGENTS.md /);
    expect(notes[0]).toContain('Use tabs in pkg.');
  });

  it('plan mode sends the plan variant', async () => {
    fake.reply({ steps: [R.created, R.messageAdded(0), R.textDelta(0, '1. Read.'), R.messageDone(0, '1. Read.'), R.completed({ input: 10, cached: 0, output: 5, reasoning: 0 })] });
    const s = await srv.call('session/new', { mode: 'plan' });
    await srv.call('session/message', { sessionId: s['sessionId'], text: 'plan it' });
    const system = systemOf(fake.requests[0]!.body);
    expect(system).toContain('You are ferret in plan mode.');
    expect(system).toContain('# The plan');
    expect(system).not.toContain('# Git');
    expect(system).toContain('# Environment');
  });
});
