import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as A from '../fakes/anthropic.js';
import { FakeServer } from '../fakes/fake-server.js';
import * as C from '../fakes/openai-chat.js';
import * as R from '../fakes/openai-responses.js';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';

// Images from the built CLI: an editor's image block reaches the recorded request of a fake
// OpenAI (Responses) and Anthropic server as an image part, and replays on session/load in a new
// process; a PNG read by read_file reaches a vision model as an image; a text-only model gets a
// note in place of the image and the person a notice; a block that is not an image is refused.

const TOKEN = 'images-test-token';
/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const openaiText = (t: string) => ({ steps: [R.created, R.messageAdded(0), R.textDelta(0, t), R.messageDone(0, t), R.completed({ input: 10, cached: 0, output: 1, reasoning: 0 })] });
const anthropicText = (t: string) => ({ steps: [A.messageStart({ input: 10 }), A.textStart(0), A.textDelta(0, t), A.blockStop(0), A.messageDelta('end_turn', 2), A.messageStop] });
const userImages = (ups: acp.SessionUpdate[]) =>
  ups.flatMap((u) => (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'image' ? [{ data: u.content.data, mimeType: u.content.mimeType }] : []));

describe('images over ACP v1, official SDK client', () => {
  const { env, start } = v1PerTest();
  let fake: FakeServer;
  const config = (providers: Record<string, unknown>) => {
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers }));
  };
  beforeEach(async () => {
    fake = await new FakeServer().start();
  });
  afterEach(() => fake.close());

  it('advertised; an image block reaches OpenAI as an input_image, and a new process replays it on session/load', async () => {
    config({ openai: { type: 'openai', baseURL: `${fake.url}/v1` } });
    fake.reply(openaiText('A red dot.'));
    const c = start(['--model', 'openai/gpt-5'], { OPENAI_API_KEY: 'sk-test' });
    const init = await c.initialize();
    expect(init.agentCapabilities?.promptCapabilities?.image).toBe(true);
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'what is this?' }, { type: 'image', data: PNG, mimeType: 'image/png' }],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(fake.images).toEqual([{ request: 0, mediaType: 'image/png', data: PNG, inToolResult: false }]);
    // Its own editor shows what it sent: no echo of the image to the client that sent it.
    expect(userImages(c.of(s.sessionId))).toEqual([]);
    expect(c.schemaErrors()).toEqual([]);
    await c.close();

    const d = start(['--model', 'openai/gpt-5'], { OPENAI_API_KEY: 'sk-test' });
    await d.initialize();
    await d.agent.request('session/load', { sessionId: s.sessionId, cwd: env.ws, mcpServers: [] });
    const ups = d.of(s.sessionId);
    expect(userImages(ups)).toEqual([{ data: PNG, mimeType: 'image/png' }]);
    const said = ups.flatMap((u) => (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' ? [u.content.text] : []));
    expect(said).toEqual(['what is this?']);
    expect(d.schemaErrors()).toEqual([]);

    // The next request carries the image again, from the stored history.
    fake.reply(openaiText('Still a dot.'));
    await d.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'and now?' }] });
    expect(fake.images.filter((im) => im.request === 1)).toEqual([{ request: 1, mediaType: 'image/png', data: PNG, inToolResult: false }]);
  }, 60_000);

  it('Anthropic gets an image block; a PNG that read_file opens reaches it inside the tool result', async () => {
    config({ anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } });
    writeFileSync(join(env.ws, 'shot.png'), Buffer.from(PNG, 'base64'));
    fake.reply(anthropicText('A dot.'));
    fake.reply({
      steps: [A.messageStart({ input: 10 }), A.toolStart(0, 'toolu_1', 'read_file'), A.toolArgs(0, '{"path":"shot.png"}'), A.blockStop(0), A.messageDelta('tool_use', 5), A.messageStop],
    });
    fake.reply(anthropicText('The file is the same dot.'));
    const c = start(['--model', 'anthropic/claude-sonnet-4-5'], { ANTHROPIC_API_KEY: 'sk-ant-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    // An image sent as a JPEG is what its bytes say it is.
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'image', data: PNG, mimeType: 'image/jpeg' }] });
    expect(fake.images).toEqual([{ request: 0, mediaType: 'image/png', data: PNG, inToolResult: false }]);
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'open shot.png' }] });
    const third = fake.images.filter((im) => im.request === 2);
    expect(third).toContainEqual({ request: 2, mediaType: 'image/png', data: PNG, inToolResult: true });
    // What the editor sees of that call is a line of text, never the bytes.
    const ends = c.of(s.sessionId).filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(JSON.stringify(ends)).toContain('image/png');
    expect(JSON.stringify(ends)).not.toContain(PNG);
    expect(c.schemaErrors()).toEqual([]);
  });

  it('a text-only model gets a note where the image was and the person a notice; a non-image is refused naming the block', async () => {
    // A compatible server whose model name says nothing of vision is taken as text-only.
    config({ local: { type: 'openai-compatible', baseURL: `${fake.url}/v1` } });
    fake.reply({ steps: [C.chatText('I cannot see it.'), C.chatFinish('stop'), C.chatUsage({ prompt: 10, completion: 3 }), C.chatDone] });
    const c = start(['--model', 'local/llama3.1'], {});
    await c.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: false, session: { notices: {} } });
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'look' }, { type: 'image', data: PNG, mimeType: 'image/png' }] });
    expect(fake.images).toEqual([]);
    expect(JSON.stringify(fake.requests[0]!.body['messages'])).toMatch(/an image was attached here \(image\/png, 1 KB\), but local\/llama3\.1 cannot see images/);
    const notices = c.of(s.sessionId).filter((u) => u.sessionUpdate === ('notice' as string)) as unknown as { title?: string }[];
    expect(notices.map((n) => n.title).join('\n')).toMatch(/local\/llama3\.1 cannot see images: the image reached it as a note/);

    // An embedded icon (not one of the four formats) is named in the text; the prompt goes on.
    fake.reply({ steps: [C.chatText('An icon.'), C.chatFinish('stop'), C.chatUsage({ prompt: 10, completion: 3 }), C.chatDone] });
    const icon = await c.agent.request('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'and this' }, { type: 'resource', resource: { uri: 'file:///x/favicon.ico', mimeType: 'image/x-icon', blob: Buffer.from([0, 0, 1, 0, 1, 0]).toString('base64') } }],
    });
    expect(icon.stopReason).toBe('end_turn');
    expect(JSON.stringify(fake.requests[1]!.body['messages'])).toContain('[@file:///x/favicon.ico] (binary content omitted');

    const bad = await c.agent
      .request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'x' }, { type: 'image', data: Buffer.from('not a picture').toString('base64'), mimeType: 'image/png' }] })
      .then(() => undefined, (e: unknown) => e as { code?: number; message?: string });
    expect(bad?.code).toBe(-32602);
    expect(bad?.message).toMatch(/prompt\[1\]: not a PNG, JPEG, GIF or WebP image \(sent as image\/png\)/);
    expect(fake.requests).toHaveLength(2);
  });
});

describe('images over HTTP, from the built CLI', () => {
  const { env, startHttp } = ferretPerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }));
  });
  afterEach(() => fake.close());

  it('an image in the message body reaches the model; a bad one is a 400 naming it and no model call', async () => {
    const { url } = await startHttp(['--model', 'openai/gpt-5'], { FERRET_SERVER_TOKEN: TOKEN, OPENAI_API_KEY: 'sk-test' });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    const bad = await api(url, 'POST', `/session/${id}/message`, { text: 'x', images: [{ data: 'AAAA' }] }, TOKEN);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'invalid_params', message: expect.stringMatching(/images\[0\]: not a PNG, JPEG, GIF or WebP image/) } });
    expect(fake.requests).toHaveLength(0);
    fake.reply(openaiText('A dot.'));
    const done = await api(url, 'POST', `/session/${id}/message`, { text: 'what is it?', images: [{ data: `data:image/png;base64,${PNG}` }] }, TOKEN);
    expect(done.body).toMatchObject({ stopReason: 'end_turn', message: { text: 'A dot.' } });
    expect(fake.images).toEqual([{ request: 0, mediaType: 'image/png', data: PNG, inToolResult: false }]);
  });
});
