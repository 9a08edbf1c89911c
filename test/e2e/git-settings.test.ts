// git's executable settings, through the built CLI: a folder committed in the workspace that git
// takes for a repository, its config pointing fsmonitor, the external diff, textconv, a filter,
// a hook and an alias at a marker script. Under auto the read-only git commands through it run
// without asking and never run the marker, sandboxed and on the host (danger-full-access); the
// alias asks. The variant tables are in src/sandbox/confine/git-env.test.ts.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { scratchRoot } from '../support/scratch.mjs';
import { writeScript } from '../support/temp.mjs';

const COMMANDS = [
  'git -C fixture status', 'cd fixture && git status', 'git -C fixture ls-files', 'git -C fixture diff --stat',
  'git -C fixture diff --no-index ../a.txt ../b.txt', 'git -C fixture log -p', 'git -C fixture show',
];

describe("git's executable settings, end to end", () => {
  const { env, start } = ferretPerTest();
  let outside = '';
  let marker = '';
  beforeEach(async () => {
    outside = mkdtempSync(join(scratchRoot(), 'git-settings-'));
    marker = join(outside, 'MARK');
    const script = join(outside, 'mark.sh');
    writeFileSync(script, `#!/bin/sh\necho MARKER-RAN >&2\necho "$0" >> ${marker}\ncat\n`);
    chmodSync(script, 0o755);
    const f = join(env.ws, 'fixture');
    for (const d of ['objects', 'refs/heads', 'hooks']) mkdirSync(join(f, d), { recursive: true });
    writeFileSync(join(f, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(f, 'objects', '.keep'), '');
    writeFileSync(join(f, 'refs', 'heads', '.keep'), '');
    writeFileSync(join(f, 'hooks', 'post-index-change'), `#!/bin/sh\n${script}\n`);
    chmodSync(join(f, 'hooks', 'post-index-change'), 0o755);
    writeFileSync(join(f, 'config'), `[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = ${script}\n\tpager = ${script}\n\thooksPath = hooks\n` +
      `[diff]\n\texternal = ${script}\n[diff "m"]\n\ttextconv = ${script}\n[filter "m"]\n\tclean = ${script}\n[alias]\n\tst = !${script}\n`);
    writeFileSync(join(env.ws, '.gitattributes'), '* diff=m filter=m\n');
    writeFileSync(join(env.ws, 'a.txt'), 'one\n');
    writeFileSync(join(env.ws, 'b.txt'), 'two\n');
    const git = (...a: string[]) => execa('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...a], { cwd: env.ws });
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('commit', '-qm', 'a folder that looks like a repository');
    writeFileSync(join(env.ws, 'a.txt'), 'one, changed\n');
  });
  afterEach(() => rmSync(outside, { recursive: true, force: true }));

  it.each(['workspace-write', 'danger-full-access'])('under %s + auto: every read-only git command runs without asking and none runs the marker; the alias asks', async (sandbox) => {
    const m = writeScript(env.ws, 'm.json', {
      responses: [{ toolCalls: [...COMMANDS, 'git -C fixture st'].map((command) => ({ name: 'bash', arguments: { command } })) }, { chunks: ['ok'] }],
    });
    const srv = start(['--sandbox', sandbox, '--approval', 'auto', '--model', `scripted:${m}`]);
    const s = await srv.call('session/new', {});
    const reply = srv.call('session/message', { sessionId: s['sessionId'], text: 'go' });
    const req = (await srv.waitFor((x) => x['params']?.kind === 'permission_request', 30_000))['params'] as Json;
    // The only question is the alias: git does not know `st`, the repository's config would.
    expect(req['args']).toEqual({ command: 'git -C fixture st' });
    await srv.call('permission/respond', { sessionId: s['sessionId'], id: req['id'], decision: 'deny' });
    await reply;
    const ups = srv.updates(s['sessionId']);
    expect(ups.filter((u) => u['kind'] === 'permission_request')).toHaveLength(1);
    const ends = ups.filter((u) => u['kind'] === 'tool_call_end').map((u) => u['result'] as Json);
    expect(ends).toHaveLength(COMMANDS.length + 1);
    // Each ran (git refuses to open the folder: an exit code, not a question) and none ran the marker.
    for (const r of ends.slice(0, COMMANDS.length)) {
      expect(['completed', 'failed']).toContain(r['status']);
      expect(String(r['output'])).toMatch(/\[exit code \d+\]/);
      expect(String(r['output'])).not.toContain('MARKER-RAN');
    }
    // The first command's own result (read-only calls run side by side and may end in any order).
    const firstId = ups.find((u) => u['kind'] === 'tool_call_start')!['id'];
    const first = ups.find((u) => u['kind'] === 'tool_call_end' && u['id'] === firstId)!['result'] as Json;
    expect(String(first['output'])).toContain("safe.bareRepository is 'explicit'");
    expect(String(ends.at(-1)!['output'] ?? '')).not.toContain('MARKER-RAN');
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});
