import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFerretClient, FerretHttpError, type FerretApiClient } from '../../clients/typescript/src/index.mjs';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { SseClient } from '../support/sse.mjs';
import { writeScript } from '../support/temp.mjs';
import { Bot, codeOf } from './bot.js';

// The bot in ./bot.ts uses only the typed client; the "other client" here is raw HTTP and SSE.

const TOKEN = 'bot-token-0123456789abcdef';
const TWO_WRITES = {
  responses: [
    {
      chunks: ['Writing two files.'],
      toolCalls: [
        { name: 'write_file', arguments: { path: 'mine.txt', content: 'bot\n' } },
        { name: 'write_file', arguments: { path: 'theirs.txt', content: 'other\n' } },
      ],
    },
    { chunks: ['Done.'] },
  ],
};
const SLOW = { responses: [{ chunks: Array.from({ length: 400 }, (_, i) => `chunk ${i} `), delayMs: 25 }] };

describe('a bot compiled from the typed client', () => {
  const { env, startHttp } = ferretPerTest();
  const start = async (): Promise<{ url: string; client: FerretApiClient }> => {
    const model = writeScript(env.home, 'two-writes.json', TWO_WRITES);
    const { url } = await startHttp(['--model', `scripted:${model}`], { FERRET_SERVER_TOKEN: TOKEN });
    return { url, client: createFerretClient({ baseUrl: url, token: TOKEN }) };
  };

  it('answers the permission requests it covers, sees the one another client answered, and the turn ends', async () => {
    const { url, client } = await start();
    const bot = new Bot(client, (req) => (JSON.stringify(req.args).includes('mine.txt') ? 'allow' : undefined));
    const id = await bot.open(); // POST /session with no body: the server's defaults
    expect(await client.setApproval(id, 'suggest')).toEqual({ old: 'auto', new: 'suggest' });

    // The other client: follows the same session over raw SSE and denies theirs.txt over raw HTTP.
    const other = new SseClient(url, `/session/${id}/events`, { token: TOKEN });
    expect(await other.opened).toBe(200);
    const otherAnswer = other
      .waitFor((fs) => fs.some((f) => f.event === 'loop_event' && f.data['kind'] === 'permission_request' && JSON.stringify(f.data['args']).includes('theirs.txt')), 15_000)
      .then(async () => {
        const req = other.frames.find((f) => f.event === 'loop_event' && f.data['kind'] === 'permission_request' && JSON.stringify(f.data['args']).includes('theirs.txt'))!;
        const r = await api(url, 'POST', `/session/${id}/permission`, { id: req.data['id'], decision: 'deny' }, TOKEN);
        expect(r.status, r.text).toBe(200);
        return req.data['id'] as string;
      });

    const report = await bot.turn(id, 'write both files');
    const theirsId = await otherAnswer;
    other.close();

    expect(report.result).toMatchObject({ turnId: report.turnId, stopReason: 'end_turn', message: { role: 'assistant', text: 'Done.' } });
    expect(report.answered).toEqual([{ id: expect.any(String), decision: 'allow', tool: 'write_file' }]);
    expect(report.resolvedElsewhere).toEqual([expect.objectContaining({ kind: 'permission_resolved', id: theirsId, decision: 'deny', by: 'http' })]);
    expect(report.lostRaces).toEqual([]);
    expect(report.shape.filter((s) => s === 'loop_event:permission_request')).toHaveLength(2);
    expect(report.shape.at(-1)).toBe('result:end_turn');
    expect(readFileSync(join(env.ws, 'mine.txt'), 'utf8')).toBe('bot\n');
    expect(existsSync(join(env.ws, 'theirs.txt'))).toBe(false);
    // The answer the bot gave is final: answering it again is a typed 409.
    expect(await codeOf(client.answerPermission(id, report.answered[0]!.id, 'deny'))).toBe('already_decided');
  });

  it('cancels a long turn, and meets 409 session_busy while it runs', async () => {
    const { client } = await start();
    const bot = new Bot(client);
    const id = await bot.open();
    expect(await client.setModel(id, `scripted:${writeScript(env.home, 'slow.json', SLOW)}`)).toEqual({ model: expect.stringMatching(/^scripted:.*slow\.json$/) });
    let busy: string | undefined;
    const report = await bot.turn(id, 'talk for a long time', {
      onFrame: async (f) => {
        if (f.event !== 'loop_event' || f.data.kind !== 'agent_message_chunk') return undefined;
        busy ??= await codeOf(client.sendMessage(id, 'me too'));
        return 'cancel';
      },
    });
    expect(busy).toBe('session_busy');
    expect(report.cancelled).toBe(true);
    expect(report.result.stopReason).toBe('cancelled');
    expect(report.shape.filter((s) => s === 'loop_event:agent_message_chunk').length).toBeLessThan(50);
    expect((await client.getSession(id)).status).toBe('idle');
    expect((await client.listPrompts(id)).prompts.map((p) => p.text)).toEqual(['talk for a long time']);
  });

  it('reads errors by their typed codes', async () => {
    const { url, client } = await start();
    const id = await new Bot(client).open();
    expect(await codeOf(client.getSession('does-not-exist'))).toBe('session_not_found');
    expect(await codeOf(client.createSession({ model: 'nope/none' }))).toBe('model_unavailable');
    expect(await codeOf(client.answerPermission(id, 'perm-x', 'allow'))).toBe('permission_not_found');
    expect(await codeOf(client.setModel(id, 'nope/none'))).toBe('model_unavailable');
    expect(await codeOf(createFerretClient({ baseUrl: url, token: 'wrong' }).listSessions())).toBe('unauthorized');
    const e = await client.getSession('bad id!').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FerretHttpError);
    expect(e).toMatchObject({ status: 400, code: 'invalid_params', path: '/session/bad%20id!' });
    // The stream of a session that does not exist throws its typed error at once, no retries.
    const stream = client.events('does-not-exist');
    await expect(stream.opened).rejects.toMatchObject({ status: 404, code: 'session_not_found' });
    await expect((async () => {
      for await (const _ of stream) return;
    })()).rejects.toMatchObject({ code: 'session_not_found' });
    expect((await client.health()).ok).toBe(true);
    expect((await client.listModels()).models.length).toBeGreaterThan(0);
    expect(await client.authState()).toMatchObject({ tokenRequired: true, authenticated: true });
  });
});
