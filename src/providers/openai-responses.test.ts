import { afterEach, beforeEach, expect, it } from 'vitest';
import { collect, providerFor, request, textOf } from '../../test/fakes/drive.js';
import { FakeServer } from '../../test/fakes/fake-server.js';
import * as R from '../../test/fakes/openai-responses.js';

let fake: FakeServer;
beforeEach(async () => (fake = await new FakeServer().start()));
afterEach(() => fake.close());

it('built-in openai speaks the Responses API: text, two calls, usage, built-in price', async () => {
  fake.reply({
    steps: [
      R.created, R.messageAdded(0), R.textDelta(0, 'Reading.'), R.messageDone(0, 'Reading.'),
      R.callAdded(1, 'call_a', 'read_file'), R.callArgs(1, '{"path":"a.txt"}'), R.callDone(1, 'call_a', 'read_file', '{"path":"a.txt"}'),
      R.callAdded(2, 'call_b', 'list_dir'), R.callArgs(2, '{"path":"src"}'), R.callDone(2, 'call_b', 'list_dir', '{"path":"src"}'),
      R.completed({ input: 1000, cached: 800, output: 500, reasoning: 300 }),
    ],
  });
  const p = providerFor('openai/gpt-5-codex', { providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }, { OPENAI_API_KEY: 'sk-o' });
  const { parts, error } = await collect(p.stream(request([{ role: 'user', text: 'hi' }])));
  expect(error).toBeUndefined();
  expect(fake.requests[0]?.path).toBe('/v1/responses');
  expect(textOf(parts)).toBe('Reading.');
  expect(parts.filter((x) => x.type === 'tool_call')).toEqual([
    { type: 'tool_call', id: 'call_a', name: 'read_file', args: { path: 'a.txt' } },
    { type: 'tool_call', id: 'call_b', name: 'list_dir', args: { path: 'src' } },
  ]);
  expect(parts.find((x) => x.type === 'usage')).toEqual({ type: 'usage', usage: { input: 200, output: 200, cache: 800, reasoning: 300 } });
  expect(p.pricing).toEqual({ input: 1.25, output: 10, cache: 0.125, reasoning: 10 });
});
