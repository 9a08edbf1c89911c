import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as A from '../fakes/anthropic.js';
import { FakeServer } from '../fakes/fake-server.js';
import { v1PerTest } from '../support/acp-v1-client.js';
import { tempDir } from '../support/temp.mjs';

// @-mentions from the built CLI: an editor's resource_link to a workspace file puts the file's
// content in what the model receives (recorded by a fake Anthropic server); a folder becomes a
// listing; a file outside the workspace is refused under workspace-write and the model is told why.

describe('@-mentions (resource_link) over ACP v1, official SDK client', () => {
  const { env, start } = v1PerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } } }));
    mkdirSync(join(env.ws, 'src'), { recursive: true });
    writeFileSync(join(env.ws, 'src', 'a.ts'), 'export const secretSauce = 42;\n');
    writeFileSync(join(env.ws, 'src', 'b.ts'), 'export {};\n');
  });
  afterEach(() => fake.close());

  it('a file, a folder and an outside file: content, listing, and a refusal with its reason reach the model', async () => {
    const outside = tempDir('outside');
    writeFileSync(join(outside, 'key.txt'), 'do-not-send\n');
    fake.reply({ steps: [A.messageStart({ input: 10 }), A.textStart(0), A.textDelta(0, 'Seen.'), A.blockStop(0), A.messageDelta('end_turn', 2), A.messageStop] });
    const c = start(['--model', 'anthropic/claude-sonnet-4-5', '--sandbox', 'workspace-write'], { ANTHROPIC_API_KEY: 'sk-ant-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', {
      sessionId: s.sessionId,
      prompt: [
        { type: 'text', text: 'review' },
        { type: 'resource_link', uri: pathToFileURL(join(env.ws, 'src', 'a.ts')).href, name: 'a.ts' },
        { type: 'resource_link', uri: pathToFileURL(join(env.ws, 'src')).href, name: 'src' },
        { type: 'resource_link', uri: pathToFileURL(join(outside, 'key.txt')).href, name: 'key.txt' },
      ],
    });
    expect(r.stopReason).toBe('end_turn');
    const sent = JSON.stringify(fake.requests[0]!.body['messages']);
    expect(sent).toContain('<context file=\\"src/a.ts\\">\\nexport const secretSauce = 42;\\n');
    expect(sent).toContain('<context folder=\\"src\\">\\na.ts\\nb.ts\\n</context>');
    expect(sent).toMatch(/key\.txt\\">\\n\(not read: [^)]*outside the workspace/);
    expect(sent).not.toContain('do-not-send');
  });
});
