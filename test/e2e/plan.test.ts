import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';

// The plan tool from the built CLI: a scripted model writes a three-step plan and then marks the
// steps one by one. An official ACP v1 client gets a schema-valid `plan` update with the whole
// list each time (the schema check runs on every message after each test), a new process replays
// the last plan on session/load, and the ferret dialect on stdio and an SSE reader get `plan`.

const TOKEN = 'tok-plan-0123456789abcdef';
type Status = 'pending' | 'in_progress' | 'completed';
const STEPS = ['Read the failing test', 'Fix the parser', 'Run the tests'] as const;
const PRIORITY = ['medium', 'high', 'medium'] as const;

/** The plan after `done` steps are completed (the next one in progress). */
function planAt(done: number): { content: string; status: Status; priority: (typeof PRIORITY)[number] }[] {
  return STEPS.map((content, i) => ({ content, status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending', priority: PRIORITY[i]! }));
}
/** What the model sends: priorities only where it gives one (the second step), so the default is exercised. */
const sent = (done: number) => planAt(done).map((e, i) => (i === 1 ? e : { content: e.content, status: e.status }));
/** Four plan updates (0 to 3 steps done), then the answer. */
const WALK = {
  responses: [
    ...[0, 1, 2, 3].map((done) => ({ chunks: [`Step ${done}.`], toolCalls: [{ name: 'update_plan', arguments: { entries: sent(done) } }] })),
    { chunks: ['All three done.'] },
  ],
};
const EXPECTED = [0, 1, 2, 3].map(planAt);

describe('the plan over ACP v1 (official SDK client)', () => {
  const { env, start } = v1PerTest();

  it('a plan update with the full list on every change, never asking even under suggest; session/load in a new process replays the last plan', async () => {
    const model = writeScript(env.home, 'model.json', WALK);
    const c = start(['--model', `scripted:${model}`, '--approval', 'suggest', '--sandbox', 'read-only']);
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'fix the parser' }] });
    expect(r.stopReason).toBe('end_turn');
    expect(c.permissions).toEqual([]);
    const ups = c.of(s.sessionId);
    const plans = ups.filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'plan' }> => u.sessionUpdate === 'plan');
    expect(plans.map((p) => p.entries)).toEqual(EXPECTED);
    // Each plan follows its own tool call (drawn as a `think` call), in order.
    const calls = ups.filter((u) => u.sessionUpdate === 'tool_call');
    expect(calls.map((u) => [u.kind, u.title])).toEqual([0, 1, 2, 3].map((d) => ['think', `Plan: ${d} of 3 done`]));
    await c.close();

    const d = start(['--model', `scripted:${model}`]);
    await d.initialize();
    await d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] });
    const replayed = d.of(s.sessionId).filter((u) => u.sessionUpdate === 'plan');
    expect(replayed.at(-1)).toEqual({ sessionUpdate: 'plan', entries: EXPECTED[3] });
    expect(replayed.map((u) => (u as { entries: unknown }).entries)).toEqual(EXPECTED);
  });
});

describe('the plan on the ferret dialect and SSE', () => {
  const { env, start, startHttp } = ferretPerTest();

  it('stdio: a plan update per change, with the whole list', async () => {
    const model = writeScript(env.home, 'model.json', WALK);
    const srv = start(['--model', `scripted:${model}`, '--approval', 'suggest']);
    const id = (await srv.call('session/new', {}))['sessionId'] as string;
    await srv.call('session/message', { sessionId: id, text: 'fix the parser' });
    expect(srv.updates(id).filter((u) => u['kind'] === 'plan').map((u) => u['entries'])).toEqual(EXPECTED);
    expect(srv.updates(id).filter((u) => u['kind'] === 'permission_request')).toEqual([]);
  });

  it('SSE: the same plan loop_events live, and again to a reader that replays the session (Last-Event-ID: 0)', async () => {
    const model = writeScript(env.home, 'model.json', WALK);
    const { url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'suggest'], { FERRET_SERVER_TOKEN: TOKEN });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;
    const done = await api(url, 'POST', `/session/${id}/message`, { text: 'fix the parser' }, TOKEN);
    expect(done.body).toMatchObject({ stopReason: 'end_turn' });
    const plans = (fs: SseClient['frames']) => fs.filter((f) => f.event === 'loop_event' && f.data['kind'] === 'plan').map((f) => f.data['entries']);
    await sse.waitFor((fs) => plans(fs).length === 4);
    expect(plans(sse.frames)).toEqual(EXPECTED);
    sse.close();
    const later = new SseClient(url, `/session/${id}/events`, { token: TOKEN, lastEventId: '0' });
    await later.waitFor((fs) => plans(fs).length === 4);
    expect(plans(later.frames).at(-1)).toEqual(EXPECTED[3]);
    later.close();
  });
});
