import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { readEvents } from '../support/eventlog.mjs';
import { writeScript } from '../support/temp.mjs';

// grep and glob from the built CLI, driven by a scripted model through the official ACP v1
// client, once with ripgrep and once with the built-in engine (config.json's search.engine): in
// a git workspace whose .gitignore lists dist/, nothing under dist/ comes back unless asked,
// the filters work, and what the model receives is the same text from either engine.

type Update = acp.SessionUpdate;

const calls = [
  { name: 'grep', arguments: { pattern: 'needle' } },
  { name: 'grep', arguments: { pattern: 'NEEDLE', ignore_case: true, output: 'files' } },
  { name: 'grep', arguments: { pattern: 'needle', glob: '*.ts', context: 1 } },
  { name: 'grep', arguments: { pattern: 'needle', output: 'count', limit: 1 } },
  { name: 'grep', arguments: { pattern: 'needle', include_ignored: true, output: 'files' } },
  { name: 'glob', arguments: { pattern: '**/*.js' } },
  { name: 'glob', arguments: { pattern: '**/*.js', include_ignored: true } },
];

describe('search that respects the repository (ACP v1, scripted model)', () => {
  const { env, start } = v1PerTest();

  async function outputs(engine: 'ripgrep' | 'builtin'): Promise<string[]> {
    const put = (rel: string, text: string) => {
      mkdirSync(dirname(join(env.ws, rel)), { recursive: true });
      writeFileSync(join(env.ws, rel), text);
    };
    execFileSync('git', ['init', '-q', env.ws]);
    put('.gitignore', 'dist/\nmodel.json\n');
    put('src/a.ts', 'before\nconst needle = 1;\nafter\n');
    put('src/b.js', 'Needle in js\n');
    put('dist/a.js', 'needle in build output\n');
    put('dist/a.ts', 'needle in build output\n');
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ search: { engine } }));
    writeScript(env.ws, 'model.json', { responses: [{ chunks: ['searching'], toolCalls: calls }, { chunks: ['done'] }] });
    const c = start(['--model', `scripted:${join(env.ws, 'model.json')}`, '--approval', 'auto']);
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'go' }] });
    expect(r.stopReason).toBe('end_turn');
    const ups: Update[] = c.of(s.sessionId);
    expect(ups.filter((u) => u.sessionUpdate === 'tool_call').map((u) => (u as { title?: string }).title)).toHaveLength(calls.length);
    // What the model's next request carries.
    const msgs = readEvents(env.home, s.sessionId).filter((e) => e['type'] === 'message' && e['data'].message.role === 'tool');
    const results: { status: string; output: string }[] = msgs.at(-1)!['data'].message.results;
    expect(results.map((x) => x.status)).toEqual(calls.map(() => 'completed'));
    return results.map((x) => x.output);
  }

  it.each(['ripgrep', 'builtin'] as const)('with %s', async (engine) => {
    const out = await outputs(engine);
    expect(out).toEqual([
      'src/a.ts:2:const needle = 1;',
      'src/a.ts\nsrc/b.js',
      'src/a.ts-1-before\nsrc/a.ts:2:const needle = 1;\nsrc/a.ts-3-after',
      'src/a.ts:1',
      'dist/a.js\ndist/a.ts\nmodel.json\nsrc/a.ts',
      'src/b.js',
      'dist/a.js\nsrc/b.js',
    ]);
  });
});
