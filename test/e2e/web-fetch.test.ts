// web_fetch from the built CLI, with a recording fake model provider and a loopback page server
// this test starts: what the model receives, when a person is asked, and that loopback,
// link-local and private addresses are never reached unless config.json's webFetch.allowPrivate
// says so (switched on for the loopback server in the tests that need it, and only there).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { answeredTurn } from '../support/answered-turn.js';
import { ferretPerTest } from '../support/per-test.js';

const PAGE = '<html><head><title>Widget docs</title><script>steal()</script></head><body><h2>Install</h2><p>Run <code>npm i widget</code>.</p></body></html>';

describe('web_fetch, end to end (loopback page server, recording fake provider)', () => {
  const { env, start } = ferretPerTest();
  let fake: FakeServer;
  let pages: Server;
  let port = 0;
  let hits = 0;
  beforeEach(async () => {
    fake = await new FakeServer().start();
    hits = 0;
    pages = createServer((req, res) => {
      hits++;
      if (req.url === '/meta') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return void res.end();
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    });
    await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
    port = (pages.address() as AddressInfo).port;
  });
  afterEach(async () => {
    await fake.close();
    pages.closeAllConnections();
    await new Promise((r) => pages.close(r));
  });

  function config(webFetch?: Json): void {
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } }, ...(webFetch ? { webFetch } : {}) }));
  }
  const toolCall = (args: Json) => R.oneCallReply('web_fetch', args);
  const done = R.textReply('ok');
  const sent = () => JSON.stringify(fake.requests.map((r) => r.body));
  const ends = (srv: FerretClient, id: string) => srv.updates(id).filter((u) => u['kind'] === 'tool_call_end').map((u) => u['result'] as Json);
  const asks = (srv: FerretClient, id: string) => srv.updates(id).filter((u) => u['kind'] === 'permission_request');

  async function turn(approval: string, url: string, answer?: 'allow' | 'deny' | 'never'): Promise<{ srv: FerretClient; sid: string; asked: Json | undefined }> {
    fake.reply(toolCall({ url, prompt: 'how to install' }), done);
    const srv = start(['--model', 'openai/gpt-5', '--approval', approval], { OPENAI_API_KEY: 'sk-test' });
    return { srv, ...(await answeredTurn(srv, 'read the docs', answer)) };
  }

  it('auto asks before fetching a host nobody allowed; allowed, the page reaches the model as Markdown', async () => {
    config({ allowPrivate: ['127.0.0.1'] });
    const { srv, sid, asked } = await turn('auto', `http://127.0.0.1:${port}/docs`, 'allow');
    expect(asked).toMatchObject({ tool: 'web_fetch' });
    expect(JSON.stringify(asked)).toContain(`http://127.0.0.1:${port}`);
    expect(ends(srv, sid).map((r) => r['status'])).toEqual(['completed']);
    expect(sent()).toContain('# Widget docs');
    expect(sent()).toContain('## Install');
    expect(sent()).toContain('Run `npm i widget`.');
    expect(sent()).not.toContain('steal()');
    expect(hits).toBe(1);
  });

  it('auto fetches without asking when the host is in webFetch.allowDomains', async () => {
    config({ allowDomains: ['127.0.0.1'], allowPrivate: ['127.0.0.1'] });
    const { srv, sid } = await turn('auto', `http://127.0.0.1:${port}/docs`);
    expect(asks(srv, sid)).toEqual([]);
    expect(ends(srv, sid).map((r) => r['status'])).toEqual(['completed']);
    expect(sent()).toContain('## Install');
  });

  it('a person\'s "never" for a host holds for every later fetch from it, under full-auto too', async () => {
    config({ allowPrivate: ['127.0.0.1'] });
    const first = await turn('auto', `http://127.0.0.1:${port}/a`, 'never');
    await first.srv.close();
    const { srv, sid } = await turn('full-auto', `http://127.0.0.1:${port}/other-page`);
    expect(asks(srv, sid)).toEqual([]);
    expect(ends(srv, sid).map((r) => r['status'])).toEqual(['denied']);
    expect(hits).toBe(0);
  });

  it('by default, even under full-auto: 127.0.0.1, 169.254.169.254, 10.x, [::1] are refused without asking and never reached', async () => {
    config();
    for (const url of [`http://127.0.0.1:${port}/docs`, 'http://169.254.169.254/latest/meta-data/', 'http://10.20.30.40/', `http://[::1]:${port}/docs`]) {
      fake.requests.length = 0;
      const { srv, sid } = await turn('full-auto', url);
      expect(asks(srv, sid), url).toEqual([]);
      expect(ends(srv, sid).map((r) => r['status']), url).toEqual(['denied']);
      expect(sent(), url).toMatch(/loopback|link-local|private/);
      await srv.close();
    }
    expect(hits).toBe(0);
  });

  it('by default a name that resolves to loopback is refused after DNS, and a redirect to a private address is not followed', async () => {
    config();
    const { srv, sid } = await turn('full-auto', `http://localhost:${port}/docs`);
    expect(ends(srv, sid).map((r) => r['status'])).toEqual(['failed']);
    expect(sent()).toMatch(/localhost resolves to .* loopback address/);
    await srv.close();
    expect(hits).toBe(0);
    // The first hop is let through (loopback allowed for 127.0.0.1 only); its redirect is not.
    config({ allowDomains: ['169.254.169.254'], allowPrivate: ['127.0.0.1'] });
    fake.requests.length = 0;
    const second = await turn('full-auto', `http://127.0.0.1:${port}/meta`);
    expect(ends(second.srv, second.sid).map((r) => r['status'])).toEqual(['failed']);
    expect(sent()).toContain('169.254.169.254 is a link-local address');
    expect(hits).toBe(1);
  });
});
