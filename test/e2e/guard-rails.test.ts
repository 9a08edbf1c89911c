import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { scratchRoot } from '../support/scratch.mjs';
import { writeScript } from '../support/temp.mjs';

// Outside dirs must not live under /tmp: the sandbox gives commands a private /tmp, which would
// hide an escape instead of stopping it.
const OUTSIDE_ROOT = scratchRoot();

function oneCall(name: string, args: unknown) {
  return { responses: [{ chunks: ['on it'], toolCalls: [{ name, arguments: args }] }, { chunks: ['ok'] }] };
}

describe('guard rails from the built CLI', () => {
  const { env, start } = ferretPerTest();
  let outside: string;
  const turn = async (srv: FerretClient, text = 'go', opts: Json = {}) => {
    const s = await srv.call('session/new', opts);
    const r = await srv.call('session/message', { sessionId: s['sessionId'], text });
    return { id: s['sessionId'] as string, r, ups: srv.updates(s['sessionId']) };
  };
  beforeEach(() => {
    mkdirSync(OUTSIDE_ROOT, { recursive: true });
    outside = mkdtempSync(join(OUTSIDE_ROOT, 'outside-'));
  });
  afterEach(() => {
    rmSync(outside, { recursive: true, force: true });
  });

  it('--allowed-tools takes other tools away and refuses calls to them', async () => {
    const m = writeScript(env.ws, 'm.json', oneCall('write_file', { path: 'x.txt', content: 'x' }));
    const srv = start(['--allowed-tools', 'read_file,list_dir', '--model', `scripted:${m}`]);
    const { ups } = await turn(srv);
    const end = ups.find((u) => u['kind'] === 'tool_call_end')!;
    expect(end['result'].status).toBe('denied');
    expect(end['result'].output).toMatch(/not allowed/);
    expect(existsSync(join(env.ws, 'x.txt'))).toBe(false);
  });

  it('rejects a bad flag with a message naming it and the accepted values', async () => {
    const srv = start(['--sandbox', 'sideways']);
    expect(await srv.exited).not.toBe(0);
    expect(srv.stderr).toMatch(/--sandbox.*read-only, workspace-write, danger-full-access/);
  });

  it('the plan agent refuses to write', async () => {
    const m = writeScript(env.ws, 'm.json', oneCall('write_file', { path: 'plan.txt', content: 'x' }));
    const srv = start(['--approval', 'full-auto', '--model', `scripted:${m}`]);
    const { ups } = await turn(srv, 'go', { mode: 'plan' });
    expect(ups.find((u) => u['kind'] === 'tool_call_end')!['result'].status).toBe('denied');
    expect(existsSync(join(env.ws, 'plan.txt'))).toBe(false);
  });

  it('a file tool cannot write outside the workspace, through .. or a symlink', async () => {
    const target = join(outside, 'escaped.txt');
    const m = writeScript(env.ws, 'm.json', {
      responses: [
        {
          toolCalls: [
            { name: 'write_file', arguments: { path: target, content: 'x' } },
            { name: 'bash', arguments: { command: `ln -s ${outside} link` } },
            { name: 'write_file', arguments: { path: 'link/escaped.txt', content: 'x' } },
            { name: 'write_file', arguments: { path: '.git/hooks/pre-commit', content: 'x' } },
          ],
        },
        { chunks: ['ok'] },
      ],
    });
    mkdirSync(join(env.ws, '.git', 'hooks'), { recursive: true });
    const srv = start(['--approval', 'full-auto', '--model', `scripted:${m}`]);
    const { ups } = await turn(srv);
    const ends = ups.filter((u) => u['kind'] === 'tool_call_end').map((u) => u['result'].status);
    expect(ends).toEqual(['failed', 'completed', 'failed', 'failed']);
    const violations = ups.filter((u) => u['kind'] === 'sandbox_violation');
    expect(violations).toHaveLength(3);
    expect(violations[0]).toMatchObject({ tool: 'write_file', mode: 'workspace-write', path: target });
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(env.ws, '.git/hooks/pre-commit'))).toBe(false);
  });

  it('a command cannot write outside the workspace, and the violation is reported', async () => {
    const target = join(outside, 'by-bash.txt');
    const m = writeScript(env.ws, 'm.json', oneCall('bash', { command: `echo pwned > ${target}` }));
    const srv = start(['--approval', 'full-auto', '--model', `scripted:${m}`]);
    const { ups } = await turn(srv);
    expect(ups.find((u) => u['kind'] === 'tool_call_end')!['result'].status).toBe('failed');
    expect(ups.find((u) => u['kind'] === 'sandbox_violation')).toMatchObject({ tool: 'bash', mode: 'workspace-write', path: target });
    expect(existsSync(target)).toBe(false);
  });

  it('"always" decides the same request in a second process; a different command is still asked', async () => {
    const m1 = writeScript(env.ws, 'm1.json', oneCall('bash', { command: 'touch made.txt' }));
    const a = start(['--approval', 'suggest', '--model', `scripted:${m1}`]);
    const s = await a.call('session/new', {});
    const reply = a.call('session/message', { sessionId: s['sessionId'], text: 'touch it' });
    const req = (await a.waitFor((x) => x['params']?.kind === 'permission_request'))['params'] as Json;
    await a.call('permission/respond', { sessionId: s['sessionId'], id: req['id'], decision: 'always' });
    await reply;
    expect(existsSync(join(env.ws, 'made.txt'))).toBe(true);
    await a.close();

    rmSync(join(env.ws, 'made.txt'));
    const m2 = writeScript(env.ws, 'm2.json', {
      responses: [
        { toolCalls: [{ name: 'bash', arguments: { command: "touch   'made.txt'" } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'touch other.txt' } }] },
        { chunks: ['ok'] },
      ],
    });
    const b = start(['--approval', 'suggest', '--model', `scripted:${m2}`]);
    const s2 = await b.call('session/new', {});
    const reply2 = b.call('session/message', { sessionId: s2['sessionId'], text: 'again' });
    const req2 = (await b.waitFor((x) => x['params']?.kind === 'permission_request'))['params'] as Json;
    expect(req2['args']).toEqual({ command: 'touch other.txt' });
    expect(existsSync(join(env.ws, 'made.txt'))).toBe(true); // the persisted "always" ran it unasked
    await b.call('permission/respond', { sessionId: s2['sessionId'], id: req2['id'], decision: 'deny' });
    await reply2;
    expect(b.kinds(s2['sessionId']).filter((k) => k === 'permission_request')).toHaveLength(1);

    const audit = readFileSync(join(env.home, 'ferret', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: 'bash', decision: 'always', by: 'person' }),
        expect.objectContaining({ tool: 'bash', decision: 'allow', by: 'persisted', sessionId: s2['sessionId'] }),
        expect.objectContaining({ tool: 'bash', decision: 'deny', by: 'person', sessionId: s2['sessionId'] }),
      ]),
    );
  });
});
