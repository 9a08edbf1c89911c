import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer, type Reply } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import { v1PerTest } from '../support/acp-v1-client.js';
import { api } from '../support/http.mjs';
import { ferretPerTest, type TestEnv } from '../support/per-test.js';
import { SseClient } from '../support/sse.mjs';

// Undo from the built CLI, against a recording OpenAI (Responses) server: a turn edits a.py,
// creates b.txt with bash and deletes c.md; /undo puts all three back byte-exact and the next
// request the model is sent no longer holds that turn; /redo puts the turn's files back. Over
// HTTP (in a git repository whose refs and index must not move) and ACP v1 (a plain folder).

const TOKEN = 'tok-undo-0123456789abcdef';
const A_PY = Buffer.from('def greet():\r\n    return "hi"\r\n\x00\xfe\n');
const C_MD = '# notes\n\nkeep these\n';
const NEW_A = 'def greet():\n    return "hello"\n';

const usage = { input: 20, cached: 0, output: 5, reasoning: 0 };
const say = (text: string): Reply => ({ steps: [R.created, R.messageAdded(0), R.textDelta(0, text), R.messageDone(0, text), R.completed(usage)] });
const calls = (...cs: [string, string, Record<string, unknown>][]): Reply => ({
  steps: [R.created, ...cs.flatMap(([id, name, args], i) => [R.callAdded(i, id, name), R.callDone(i, id, name, JSON.stringify(args))]), R.completed(usage)],
});
/** The turn: write a.py, then one command that creates b.txt and deletes c.md, then a reply. */
const CHANGING_TURN = [
  calls(['call_w', 'write_file', { path: 'a.py', content: NEW_A }], ['call_b', 'bash', { command: "printf 'made by bash\\n' > b.txt && rm c.md" }]),
  say('Changed three files.'),
];

function seed(ws: string): void {
  writeFileSync(join(ws, 'a.py'), A_PY);
  writeFileSync(join(ws, 'c.md'), C_MD);
}
function expectBefore(ws: string): void {
  expect(readFileSync(join(ws, 'a.py')).equals(A_PY)).toBe(true);
  expect(readFileSync(join(ws, 'c.md'), 'utf8')).toBe(C_MD);
  expect(existsSync(join(ws, 'b.txt'))).toBe(false);
}
function expectAfter(ws: string): void {
  expect(readFileSync(join(ws, 'a.py'), 'utf8')).toBe(NEW_A);
  expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('made by bash\n');
  expect(existsSync(join(ws, 'c.md'))).toBe(false);
}
function useFake(env: TestEnv, fake: FakeServer): void {
  mkdirSync(join(env.home, 'ferret'), { recursive: true });
  writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }));
}
const userGit = (ws: string, ...args: string[]) => execFileSync('git', args, { cwd: ws, encoding: 'utf8', env: { PATH: process.env['PATH'], HOME: ws, GIT_CONFIG_NOSYSTEM: '1' } });
const lastInput = (fake: FakeServer) => JSON.stringify(fake.requests.at(-1)!.body.input);

describe('undo and redo over HTTP, in a git repository', () => {
  const { env, startHttp } = ferretPerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    useFake(env, fake);
  });
  afterEach(() => fake.close());

  it('POST /undo restores the three files byte-exact and drops the turn from the next request; /redo puts it back; a file changed since is not overwritten without force; the user .git does not move', async () => {
    seed(env.ws);
    userGit(env.ws, 'init', '-q');
    userGit(env.ws, 'add', '-A');
    userGit(env.ws, '-c', 'user.name=u', '-c', 'user.email=u@x', 'commit', '-qm', 'init');
    const refs = userGit(env.ws, 'show-ref');
    const index = readFileSync(join(env.ws, '.git', 'index'));
    const { url } = await startHttp(['--model', 'openai/gpt-4.1', '--approval', 'full-auto'], { FERRET_SERVER_TOKEN: TOKEN, OPENAI_API_KEY: 'sk-test' });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    const sse = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    await sse.opened;

    fake.reply(...CHANGING_TURN);
    expect((await api(url, 'POST', `/session/${id}/message`, { text: 'rename the greeting' }, TOKEN)).body).toMatchObject({ stopReason: 'end_turn' });
    expectAfter(env.ws);
    await sse.waitFor((fs) => fs.some((f) => f.event === 'loop_event' && f.data.kind === 'checkpoint' && f.data.stage === 'after'));
    const cp = sse.frames.filter((f) => f.event === 'loop_event' && f.data.kind === 'checkpoint').map((f) => f.data.stage);
    expect(cp).toEqual(['before', 'after']);

    const undone = await api(url, 'POST', `/session/${id}/undo`, {}, TOKEN);
    expect(undone.status).toBe(200);
    expect(undone.body).toMatchObject({ stopReason: 'end_turn' });
    expect(JSON.stringify(undone.body)).toMatch(/restored 3 file/);
    expectBefore(env.ws);
    await sse.waitFor((fs) => fs.some((f) => f.event === 'loop_event' && f.data.kind === 'rewound'));
    const rewound = sse.frames.find((f) => f.event === 'loop_event' && f.data.kind === 'rewound')!.data;
    expect(rewound).toMatchObject({ op: 'undo', mode: 'both', turns: 1 });
    expect([...(rewound.files as string[])].sort()).toEqual(['a.py', 'b.txt', 'c.md']);
    sse.close();

    expect((await api(url, 'POST', `/session/${id}/redo`, {}, TOKEN)).body).toMatchObject({ stopReason: 'end_turn' });
    expectAfter(env.ws);

    // Someone edits a.py outside ferret: undoing would overwrite it, so it is refused and nothing moves.
    writeFileSync(join(env.ws, 'a.py'), 'edited by the person\n');
    const refused = await api(url, 'POST', `/session/${id}/undo`, {}, TOKEN);
    expect(refused.body).toMatchObject({ stopReason: 'error' });
    expect(JSON.stringify(refused.body)).toMatch(/changed outside ferret.*a\.py/);
    expect(readFileSync(join(env.ws, 'a.py'), 'utf8')).toBe('edited by the person\n');
    expect(existsSync(join(env.ws, 'b.txt'))).toBe(true);
    expect((await api(url, 'POST', `/session/${id}/undo`, { force: true }, TOKEN)).body).toMatchObject({ stopReason: 'end_turn' });
    expectBefore(env.ws);

    fake.reply(say('Nothing else to do.'));
    await api(url, 'POST', `/session/${id}/message`, { text: 'anything left?' }, TOKEN);
    const input = lastInput(fake);
    expect(input).toContain('anything left?');
    expect(input).not.toContain('rename the greeting');
    expect(input).not.toContain('Changed three files.');
    expect(input).not.toContain('call_w');
    // The slash commands never reach the model either.
    expect(input).not.toContain('/undo');

    expect(userGit(env.ws, 'show-ref')).toBe(refs);
    expect(readFileSync(join(env.ws, '.git', 'index')).equals(index)).toBe(true);

    // /rewind 1 conversation: the turns are listed, and going back keeps the files.
    const listed = await api(url, 'POST', `/session/${id}/rewind`, {}, TOKEN);
    expect(JSON.stringify(listed.body)).toContain('1. anything left?');
    const bad = await api(url, 'POST', `/session/${id}/rewind`, { turn: 1, mode: 'sideways' }, TOKEN);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('mode');
    // By the turn's id (the console's "restore to here"): conversation only, the files stay.
    const prompts = (await api(url, 'GET', `/session/${id}/prompts`, undefined, TOKEN)).body['prompts'] as { turnId: string; text: string }[];
    const asked = prompts.find((p) => p.text === 'anything left?')!;
    expect((await api(url, 'POST', `/session/${id}/rewind`, { turnId: asked.turnId, mode: 'conversation' }, TOKEN)).body).toMatchObject({ stopReason: 'end_turn' });
    fake.reply(say('Hello.'));
    await api(url, 'POST', `/session/${id}/message`, { text: 'start over' }, TOKEN);
    expect(lastInput(fake)).not.toContain('anything left?');
    expectBefore(env.ws);

    // The session's snapshots go with it.
    const store = env.home;
    const undoDirs = execFileSync('find', [store, '-name', 'undo.git', '-type', 'd'], { encoding: 'utf8' }).trim();
    expect(undoDirs).not.toBe('');
    expect((await api(url, 'DELETE', `/session/${id}`, undefined, TOKEN)).status).toBe(200);
    expect(existsSync(undoDirs.split('\n')[0]!)).toBe(false);
  });
});

describe('undo and redo over ACP v1 (official SDK client), in a folder that is not a git repository', () => {
  const t = v1PerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    useFake(t.env, fake);
  });
  afterEach(() => fake.close());

  it('/undo and /redo are in the command menu, restore the files, and the next request no longer holds the turn', async () => {
    seed(t.env.ws);
    fake.reply(...CHANGING_TURN);
    const c = t.start(['--model', 'openai/gpt-4.1', '--approval', 'full-auto'], { OPENAI_API_KEY: 'sk-test' });
    await c.initialize();
    const s = await c.agent.request('session/new', { cwd: t.env.ws, mcpServers: [] });
    const prompt = (text: string) => c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text }] });
    expect((await prompt('rename the greeting')).stopReason).toBe('end_turn');
    expectAfter(t.env.ws);
    const menu = c.of(s.sessionId).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: 'available_commands_update' }> => u.sessionUpdate === 'available_commands_update').at(-1);
    expect(menu?.availableCommands.map((x) => x.name)).toEqual(expect.arrayContaining(['undo', 'redo', 'rewind']));

    expect((await prompt('/undo')).stopReason).toBe('end_turn');
    expectBefore(t.env.ws);
    expect((await prompt('/redo')).stopReason).toBe('end_turn');
    expectAfter(t.env.ws);
    expect((await prompt('/rewind 1 code')).stopReason).toBe('end_turn');
    expectBefore(t.env.ws);
    expect(existsSync(join(t.env.ws, '.git'))).toBe(false);

    // Code only: the model still sees the turn.
    fake.reply(say('Still know about it.'));
    await prompt('and now?');
    expect(lastInput(fake)).toContain('rename the greeting');
    // Conversation only for turn 1 and everything after: files stay as they are now.
    fake.reply(say('Fresh start.'));
    expect((await prompt('/rewind 1 conversation')).stopReason).toBe('end_turn');
    await prompt('hello again');
    expect(lastInput(fake)).not.toContain('rename the greeting');
    expect(lastInput(fake)).not.toContain('and now?');
    expectBefore(t.env.ws);
  });
});

describe('undo of what a subagent wrote', () => {
  const { env, startHttp } = ferretPerTest();

  it("the task call's turn is recorded before the child runs, so /undo puts back the child's writes and commands", async () => {
    mkdirSync(join(env.ws, '.ferret', 'agents'), { recursive: true });
    writeFileSync(join(env.ws, '.ferret', 'agents', 'writer.md'), '---\ndescription: Writes things\ntools: write_file, bash\n---\nWrite it.\n');
    writeFileSync(join(env.ws, 'keep.txt'), 'original\n');
    const model = join(env.home, 'model.json');
    writeFileSync(
      model,
      JSON.stringify({
        responses: [{ toolCalls: [{ name: 'task', arguments: { description: 'write', prompt: 'write the files', agent: 'writer' } }] }, { chunks: ['Done.'] }],
        subagents: {
          writer: [
            { toolCalls: [{ name: 'write_file', arguments: { path: 'sub.txt', content: 'by the child\n' } }, { name: 'bash', arguments: { command: 'echo changed > keep.txt' } }] },
            { chunks: ['Wrote them.'] },
          ],
        },
      }),
    );
    const { url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'full-auto'], { FERRET_SERVER_TOKEN: TOKEN });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    expect((await api(url, 'POST', `/session/${id}/message`, { text: 'delegate it' }, TOKEN)).body).toMatchObject({ stopReason: 'end_turn' });
    expect(readFileSync(join(env.ws, 'sub.txt'), 'utf8')).toBe('by the child\n');
    expect(readFileSync(join(env.ws, 'keep.txt'), 'utf8')).toBe('changed\n');
    const undo = await api(url, 'POST', `/session/${id}/undo`, {}, TOKEN);
    expect(undo.body).toMatchObject({ stopReason: 'end_turn' });
    expect(existsSync(join(env.ws, 'sub.txt'))).toBe(false);
    expect(readFileSync(join(env.ws, 'keep.txt'), 'utf8')).toBe('original\n');
  });
});
