// Issue 27: an unknown slash command is answered by ferret itself on every surface; the model's
// server (a recording fake of Anthropic's API) never sees it, so no turn is billed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as A from '../fakes/anthropic.js';
import { FakeServer } from '../fakes/fake-server.js';
import { api } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';

const TOKEN = 'tok-slash-unknown-0123456789';

describe('/nonsense makes no model request', () => {
  const { env, start, startHttp } = ferretPerTest();
  let fake: FakeServer;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } } }));
    fake.reply({ steps: [A.messageStart({ input: 10 }), A.textStart(0), A.textDelta(0, 'Real reply.'), A.blockStop(0), A.messageDelta('end_turn', 3), A.messageStop] });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('over HTTP: answered locally, the fake server records no request; a real prompt after it does reach the model', async () => {
    const { url } = await startHttp(['--model', 'anthropic/claude-sonnet-4-5'], { FERRET_SERVER_TOKEN: TOKEN, ANTHROPIC_API_KEY: 'sk-ant-test' });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    const r = await api(url, 'POST', `/session/${id}/message`, { text: '/nonsense' }, TOKEN);
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).toContain('Unknown command /nonsense');
    expect(fake.requests).toHaveLength(0);
    const real = await api(url, 'POST', `/session/${id}/message`, { text: 'hello' }, TOKEN);
    expect(JSON.stringify(real.body)).toContain('Real reply.');
    expect(fake.requests).toHaveLength(1);
  });

  it('over the ferret dialect on stdio: the same local answer, no request', async () => {
    const srv = start(['--model', 'anthropic/claude-sonnet-4-5'], { ANTHROPIC_API_KEY: 'sk-ant-test' });
    const s = await srv.call('session/new', {});
    const says = await srv.call('session/message', { sessionId: s['sessionId'] as string, text: '/nonsense with words' });
    expect(JSON.stringify(says)).toContain('Unknown command /nonsense');
    expect(fake.requests).toHaveLength(0);
  });
});
