import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

describe('an ACP v1 client on stdio and a ferret-shaped HTTP reader on one process', () => {
  const { env, start } = v1PerTest();

  it('see the same turn', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        { chunks: ['Writing ', 'and running.'], toolCalls: [{ name: 'write_file', arguments: { path: 'w.txt', content: 'w\n' } }, { name: 'bash', arguments: { command: 'cat w.txt' } }] },
        { chunks: ['Both done.'] },
      ],
    });
    const c = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await c.httpUrl();
    await c.initialize();
    const { sessionId } = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const sse = new SseClient(url, `/session/${sessionId}/events`);
    expect(await sse.opened).toBe(200);

    const r = await c.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write and run' }] });
    expect(r.stopReason).toBe('end_turn');
    await sse.waitFor((frames) => frames.some((f) => f.event === 'result'));

    const v1 = c.of(sessionId);
    const v1Text = v1.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');
    const loop = sse.frames.filter((f) => f.event === 'loop_event').map((f) => f.data);
    const sseText = loop.filter((d) => d['kind'] === 'agent_message_chunk').map((d) => d['text']).join('');
    expect(v1Text).toBe('Writing and running.Both done.');
    expect(sseText).toBe(v1Text);
    const v1Calls = v1.filter((u) => u.sessionUpdate === 'tool_call').map((u) => u.toolCallId);
    const sseCalls = loop.filter((d) => d['kind'] === 'tool_call_start').map((d) => d['id']);
    expect(sseCalls).toEqual(v1Calls);
    expect(sse.frames.filter((f) => f.event === 'code/diff')).toHaveLength(1);
    expect(sse.frames.find((f) => f.event === 'result')!.data).toMatchObject({ stopReason: 'end_turn', message: { text: 'Both done.' } });
    sse.close();
  });
});
