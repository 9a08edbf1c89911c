import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { V1Client } from './acp-v1-client.js';
import { tempEnv, writeScript } from './harness.js';
import { SseClient } from './http-harness.js';

describe('an ACP v1 client on stdio and a ferret-shaped HTTP reader on one process', () => {
  let env: ReturnType<typeof tempEnv>;
  let c: V1Client | undefined;
  beforeEach(() => {
    env = tempEnv();
  });
  afterEach(async () => {
    expect(c?.schemaErrors()).toEqual([]);
    await c?.close();
    env.cleanup();
  });

  it('see the same turn', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        { chunks: ['Writing ', 'and running.'], toolCalls: [{ name: 'write_file', arguments: { path: 'w.txt', content: 'w\n' } }, { name: 'bash', arguments: { command: 'cat w.txt' } }] },
        { chunks: ['Both done.'] },
      ],
    });
    c = new V1Client(['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'full-auto', '--http', '--port', '0'], {
      CHIMERA_HOME: env.home,
      FERRET_LOG_LEVEL: 'info',
    });
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
    sse.kill();
  });
});
