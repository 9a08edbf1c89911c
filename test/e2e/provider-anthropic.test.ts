import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as A from '../fakes/anthropic.js';
import { FakeServer, gate } from '../fakes/fake-server.js';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';

describe('the built-in Anthropic provider from the built CLI (fake Messages API on loopback)', () => {
  const { env, start } = ferretPerTest();
  let fake: FakeServer;
  let srv: FerretClient;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    // Only the base URL is overridden: key from the environment, price from the built-in table.
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } } }));
    writeFileSync(join(env.ws, 'a.txt'), 'alpha\n');
    srv = start(['--model', 'anthropic/claude-sonnet-4-5'], { ANTHROPIC_API_KEY: 'sk-ant-test' });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('streams text live, runs two parallel tool calls, and prices the turn from the built-in table', async () => {
    const g = gate();
    fake.reply(
      {
        steps: [
          A.messageStart({ input: 100, cacheRead: 1000 }),
          A.textStart(0), A.textDelta(0, 'Look'), { gate: g }, A.textDelta(0, 'ing.'), A.blockStop(0),
          A.toolStart(1, 'toolu_1', 'read_file'), A.toolStart(2, 'toolu_2', 'list_dir'),
          A.toolArgs(1, '{"path":'), A.toolArgs(2, '{"path":"."}'), A.toolArgs(1, '"a.txt"}'),
          A.blockStop(1), A.blockStop(2),
          A.messageDelta('tool_use', 40), A.messageStop,
        ],
      },
      { steps: [A.messageStart({ input: 200 }), A.textStart(0), A.textDelta(0, 'Seen both.'), A.blockStop(0), A.messageDelta('end_turn', 5), A.messageStop] },
    );
    const s = await srv.call('session/new', {});
    const id = s['sessionId'] as string;
    const reply = srv.call('session/message', { sessionId: id, text: 'look around' });
    await srv.waitFor((m) => m['params']?.kind === 'agent_message_chunk' && m['params'].text === 'Look');
    expect(g.opened).toBe(false); // streamed as it arrived
    g.open();
    expect(await reply).toMatchObject({ stopReason: 'end_turn', message: { text: 'Seen both.' } });

    const ends = srv.updates(id).filter((u) => u['kind'] === 'tool_call_end');
    // Parallel calls end in whichever order they finish; their results go back in call order (below).
    expect(ends.map((u) => [u['id'], u['result'].status]).sort()).toEqual([['toolu_1', 'completed'], ['toolu_2', 'completed']]);
    const results = (fake.requests[1]!.body.messages as Json[]).flatMap((m) => (Array.isArray(m['content']) ? (m['content'] as Json[]) : [])).filter((b) => b['type'] === 'tool_result');
    expect(results.map((b) => b['tool_use_id'])).toEqual(['toolu_1', 'toolu_2']);
    expect(JSON.stringify(results[0])).toContain('alpha');
    expect(fake.requests[0]!.headers['x-api-key']).toBe('sk-ant-test');

    // claude-sonnet-4-5: $3 input, $15 output, $0.30 cached input per million.
    const cost = srv.updates(id).filter((u) => u['kind'] === 'cost_update').at(-1)!;
    expect(cost).toMatchObject({ input: 300, output: 45, cache: 1000, reasoning: 0 });
    expect(cost['total_usd']).toBeCloseTo((300 * 3 + 45 * 15 + 1000 * 0.3) / 1e6, 12);
  });

  it('the plan agent offers the model no write or command tools', async () => {
    fake.reply({ steps: [A.messageStart({ input: 10 }), A.textStart(0), A.textDelta(0, '1. Read. 2. Change.'), A.blockStop(0), A.messageDelta('end_turn', 5), A.messageStop] });
    const s = await srv.call('session/new', { mode: 'plan' });
    await srv.call('session/message', { sessionId: s['sessionId'], text: 'plan it' });
    const offered = (fake.requests[0]!.body.tools as Json[]).map((t) => t['name']).sort();
    expect(offered).toEqual(['glob', 'grep', 'list_dir', 'open_file', 'process_kill', 'process_output', 'read_file', 'task', 'update_plan', 'web_fetch']);
    expect(JSON.stringify(fake.requests[0]!.body.system)).toMatch(/plan mode/);
  });
});
