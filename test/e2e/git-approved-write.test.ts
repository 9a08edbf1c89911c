// An approved everyday git command may write the repository's metadata (issue 27): under
// workspace-write and auto, `git commit -am msg` asks, the prompt says what allowing it lets git
// do, and once allowed it commits. A command that writes `.git/hooks/pre-commit` is asked
// separately, says .git stays read-only, and fails even when allowed; so does a commit chained
// with another program.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' };

/** Runs one bash call, allows it when asked; answers the prompt's reason and the call's result. */
async function allowOne(srv: FerretClient, ws: string, command: string): Promise<{ reason: string; result: Json }> {
  const m = writeScript(ws, `m-${Math.random().toString(36).slice(2)}.json`, { responses: [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { chunks: ['ok'] }] });
  const s = await srv.call('session/new', { model: `scripted:${m}` });
  const reply = srv.call('session/message', { sessionId: s['sessionId'], text: 'go' });
  const req = (await srv.waitFor((x) => x['params']?.kind === 'permission_request' && x['params']?.sessionId === s['sessionId'], 30_000))['params'] as Json;
  await srv.call('permission/respond', { sessionId: s['sessionId'], id: req['id'], decision: 'allow' });
  await reply;
  const end = srv.updates(s['sessionId']).find((u) => u['kind'] === 'tool_call_end')!;
  return { reason: String(req['reason']), result: end['result'] as Json };
}

describe('approved git commands and the repository metadata', () => {
  const { env, start } = ferretPerTest();

  it('an approved git commit -am succeeds under workspace-write; writing a hook stays refused', async () => {
    const git = (...args: string[]) => execa('git', args, { cwd: env.ws, env: GIT_ENV });
    await git('init', '-q', '-b', 'main');
    writeFileSync(join(env.ws, 'a.txt'), 'one\n');
    await git('add', 'a.txt');
    await git('commit', '-qm', 'first');
    writeFileSync(join(env.ws, 'a.txt'), 'two\n');
    // The committer comes from the repository's config, which the command reads and cannot change.
    await git('config', 'user.name', 'Person');
    await git('config', 'user.email', 'person@example.com');
    const srv = start(['--sandbox', 'workspace-write', '--approval', 'auto']);

    const commit = await allowOne(srv, env.ws, 'git commit -am "second from ferret"');
    expect(commit.reason).toMatch(/git may write this repository's metadata \(\.git\).*hooks, config, info/);
    expect(commit.result['status'], String(commit.result['output'])).toBe('completed');
    expect((await git('log', '--format=%s')).stdout.split('\n')).toEqual(['second from ferret', 'first']);
    expect((await git('status', '--porcelain', '--untracked-files=no')).stdout).toBe('');
    // The read-only placeholders for the missing code folders are gone with the command.
    expect(existsSync(join(env.ws, '.git', 'modules'))).toBe(false);
    expect(existsSync(join(env.ws, '.git', 'worktrees'))).toBe(false);

    const hook = await allowOne(srv, env.ws, "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit");
    expect(hook.reason).not.toMatch(/git may write/);
    expect(hook.result['status']).toBe('failed');
    expect(String(hook.result['output'])).toMatch(/Read-only file system/);
    expect(existsSync(join(env.ws, '.git', 'hooks', 'pre-commit'))).toBe(false);

    // A commit chained with another program: .git stays read-only, and the prompt said so first.
    writeFileSync(join(env.ws, 'a.txt'), 'three\n');
    const chained = await allowOne(srv, env.ws, "git commit -am third && printf 'x' > .git/hooks/post-commit");
    expect(chained.reason).toMatch(/keeps \.git read-only for this command even if you allow it/);
    expect(chained.result['status']).toBe('failed');
    expect((await git('log', '--format=%s')).stdout.split('\n')[0]).toBe('second from ferret');
    expect(existsSync(join(env.ws, '.git', 'hooks', 'post-commit'))).toBe(false);
    expect(readFileSync(join(env.ws, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  }, 90_000);
});
