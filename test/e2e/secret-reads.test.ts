// Secrets outside the workspace, from the built CLI with a fake HOME holding a fake private key
// and a fake OpenAI server that records every request: `cat ~/.ssh/id_rsa` and read_file of it
// ask (or are refused) in read-only + auto, and the key never reaches the model provider; even
// an allowed `cat` finds the key hidden in the sandbox; under danger-full-access + full-auto both read it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { answeredTurn } from '../support/answered-turn.js';
import { ferretPerTest } from '../support/per-test.js';
import { scratchRoot } from '../support/scratch.mjs';

const KEY = 'FAKE-PRIVATE-KEY-e2e-4711';

describe('secret locations, end to end (fake HOME, recording fake provider)', () => {
  const { env, start } = ferretPerTest();
  let fake: FakeServer;
  let home = '';
  beforeEach(async () => {
    fake = await new FakeServer().start();
    home = mkdtempSync(join(scratchRoot(), 'secret-home-'));
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY}\n`);
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }));
  });
  afterEach(async () => {
    await fake.close();
    rmSync(home, { recursive: true, force: true });
  });

  const toolCall = (name: string, args: Json) => R.oneCallReply(name, args);
  const done = R.textReply('ok');
  const sent = () => JSON.stringify(fake.requests.map((r) => r.body));
  const ends = (srv: FerretClient, id: string) => srv.updates(id).filter((u) => u['kind'] === 'tool_call_end').map((u) => u['result'] as Json);

  async function turn(flags: string[], call: [string, Json], answer?: 'allow' | 'deny'): Promise<{ srv: FerretClient; sid: string; asked: Json | undefined }> {
    fake.reply(toolCall(...call), done);
    const srv = start(['--model', 'openai/gpt-5', ...flags], { OPENAI_API_KEY: 'sk-test', HOME: home });
    return { srv, ...(await answeredTurn(srv, 'go', answer)) };
  }

  it('read-only + auto: `cat ~/.ssh/id_rsa` asks; refused, the key never reaches the provider', async () => {
    const { asked } = await turn(['--sandbox', 'read-only', '--approval', 'auto'], ['bash', { command: 'cat ~/.ssh/id_rsa' }], 'deny');
    expect(asked).toMatchObject({ tool: 'bash' });
    expect(JSON.stringify(asked)).toContain('credentials');
    expect(fake.requests.length).toBe(2);
    expect(sent()).not.toContain(KEY);
  });

  it('read-only + auto: even when a person allows it, the sandbox shows no key', async () => {
    const { srv, sid } = await turn(['--sandbox', 'read-only', '--approval', 'auto'], ['bash', { command: 'cat ~/.ssh/id_rsa; ls -a ~/.ssh' }], 'allow');
    expect(ends(srv, sid)).toHaveLength(1);
    expect(fake.requests.length).toBe(2);
    expect(sent()).not.toContain(KEY);
  });

  it('read-only + auto: read_file of the key is refused, the key never reaches the provider', async () => {
    const { srv, sid } = await turn(['--sandbox', 'read-only', '--approval', 'auto'], ['read_file', { path: join(home, '.ssh', 'id_rsa') }]);
    expect(ends(srv, sid).map((r) => r['status'])).toEqual(['failed']);
    expect(sent()).not.toContain(KEY);
  });

  it('read-only + full-auto: `cat ~/.ssh/id_rsa` is refused without asking', async () => {
    const { srv, sid } = await turn(['--sandbox', 'read-only', '--approval', 'full-auto'], ['bash', { command: 'cat "$HOME/.ssh/id_rsa"' }]);
    expect(ends(srv, sid).map((r) => r['status'])).toEqual(['denied']);
    expect(sent()).not.toContain(KEY);
  });

  it('danger-full-access + auto: read_file of the key asks; refused, nothing sent', async () => {
    const { asked } = await turn(['--sandbox', 'danger-full-access', '--approval', 'auto'], ['read_file', { path: join(home, '.ssh', 'id_rsa') }], 'deny');
    expect(asked).toMatchObject({ tool: 'read_file' });
    expect(sent()).not.toContain(KEY);
  });

  it('danger-full-access + full-auto: `cat` and read_file read it (the one combination that does)', async () => {
    await turn(['--sandbox', 'danger-full-access', '--approval', 'full-auto'], ['bash', { command: 'cat ~/.ssh/id_rsa' }]);
    expect(sent()).toContain(KEY);
    fake.requests.length = 0;
    await turn(['--sandbox', 'danger-full-access', '--approval', 'full-auto'], ['read_file', { path: join(home, '.ssh', 'id_rsa') }]);
    expect(sent()).toContain(KEY);
  });

  it('read-only + auto: a command reading outside the workspace asks (sandbox.readOutside)', async () => {
    const { asked } = await turn(['--sandbox', 'read-only', '--approval', 'auto'], ['bash', { command: 'cat /etc/hostname' }], 'deny');
    expect(JSON.stringify(asked)).toContain('outside the workspace');
  });
});
