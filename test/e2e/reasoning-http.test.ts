import { describe, expect, it } from 'vitest';
import { ferretPerTest } from '../support/per-test.js';
import { api } from '../support/http.mjs';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

const TOKEN = 'tok-reasoning-0123456789';
// A scripted model that reasons before it answers (docs/scripted-model.md: `reasoning`).
const THINKER = { responses: [{ reasoning: ['Weigh ', 'it.'], chunks: ['Answer.'] }, { reasoning: ['Again.'], chunks: ['Two.'] }] };

describe('the reasoning effort and thoughts on HTTP + SSE and the ferret dialect', () => {
  const { env, start, startHttp } = ferretPerTest();

  it('HTTP sets the effort (refusing a level that is not one); SSE readers get agent_thought_chunk loop_events', async () => {
    const model = writeScript(env.home, 'model.json', THINKER);
    const { url } = await startHttp(['--model', `scripted:${model}`], { FERRET_SERVER_TOKEN: TOKEN });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    expect(await api(url, 'POST', `/session/${id}/reasoning`, { effort: 'high' }, TOKEN)).toMatchObject({ status: 200, body: { reasoning: 'high' } });
    const bad = await api(url, 'POST', `/session/${id}/reasoning`, { effort: 'extreme' }, TOKEN);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('effort');

    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;
    await api(url, 'POST', `/session/${id}/message`, { text: 'think' }, TOKEN);
    await sse.waitFor((fs) => fs.some((f) => f.event === 'result'));
    const loop = sse.frames.flatMap((f) => (f.event === 'loop_event' ? [f.data] : []));
    expect(loop.filter((d) => d.kind === 'agent_thought_chunk').map((d) => d.text)).toEqual(['Weigh ', 'it.']);
    sse.close();
    const status = await api(url, 'POST', `/session/${id}/message`, { text: '/status' }, TOKEN);
    expect(JSON.stringify(status.body)).toContain('reasoning: high');
  });

  it('the ferret dialect: session/setReasoning, and agent_thought_chunk updates on stdio', async () => {
    const model = writeScript(env.home, 'model.json', THINKER);
    const srv = start(['--model', `scripted:${model}`]);
    const s = await srv.call('session/new', {});
    const id = s['sessionId'] as string;
    expect(await srv.call('session/setReasoning', { sessionId: id, effort: 'low' })).toEqual({ reasoning: 'low' });
    await srv.call('session/message', { sessionId: id, text: 'think' });
    expect(srv.updates(id).filter((u) => u['kind'] === 'agent_thought_chunk').map((u) => u['text'])).toEqual(['Weigh ', 'it.']);
    const says = await srv.call('session/message', { sessionId: id, text: '/reasoning' });
    expect(JSON.stringify(says)).toContain('reasoning: low (one of minimal, low, medium, high)');
    const wrong = await srv.call('session/message', { sessionId: id, text: '/reasoning extreme' }).catch((e: unknown) => e);
    expect(JSON.stringify(wrong)).toContain('is not one of minimal, low, medium, high');
  });
});
