import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { usageLine } from '../../../extensions/vscode/src/model/format.js';
import { decisionWord, permissionPrompt, shorten } from '../../../extensions/vscode/src/model/permission-prompt.js';
import { exitError, handshakeError, promptError, spawnError } from '../../../extensions/vscode/src/model/server-errors.js';
import { listeningUrl, readableLogLine } from '../../../extensions/vscode/src/model/server-log.js';
import { sessionItems } from '../../../extensions/vscode/src/model/session-items.js';

// What a person reads: the permission quick pick, error messages and their buttons, the usage
// line, the session list, and the server's log lines.

const request: RequestPermissionRequest = {
  sessionId: 's',
  toolCall: { toolCallId: 'c1', status: 'pending' },
  options: [
    { optionId: 'never', name: 'Never allow', kind: 'reject_always' },
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
    { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  ],
  _meta: { 'ferret.dev': { requestId: 'p1', tool: 'bash', risk: 'high', reason: '`git push` publishes commits to a remote' } },
};

describe('permissionPrompt', () => {
  it('shows no raw backticks, and cuts a long command at a word with the card holding it whole', () => {
    const long = `for f in $(ls src); do echo "$f" && wc -l "src/$f" && grep -n TODO "src/$f"; done | sort -n | head -n 40 | tee /tmp/report.txt`;
    const p = permissionPrompt({ sessionId: 's', toolCall: { toolCallId: 'c', title: long }, options: [] }, long);
    expect(p.title).toMatch(/^Chimera asks: allow .* …\?$/);
    expect(p.title.length).toBeLessThan(120);
    const cut = p.title.slice('Chimera asks: allow '.length, -' …?'.length);
    expect(long.startsWith(cut)).toBe(true);
    expect(long[cut.length]).toBe(' '); // cut between words
    expect(shorten('run “a very long quoted command here” now', 20)).toBe('run …');
  });

  it('offers allow / always / deny / never in that order, with the risk and the reason', () => {
    const p = permissionPrompt(request, 'git push origin main');
    expect(p.title).toBe('Chimera asks: allow bash: git push origin main? (risk high)');
    expect(p.detail).toBe('“git push” publishes commits to a remote');
    expect(p.items.map((i) => [i.label, i.optionId])).toEqual([
      ['Allow', 'allow'],
      ['Always', 'always'],
      ['Deny', 'deny'],
      ['Never', 'never'],
    ]);
  });

  it('works for an agent without ferret extras (only the options it sent)', () => {
    const p = permissionPrompt({ sessionId: 's', toolCall: { toolCallId: 'c', title: 'Edit x' }, options: [{ optionId: 'y', name: 'Yes', kind: 'allow_once' }] }, undefined);
    expect(p).toEqual({ title: 'Chimera asks: allow Edit x?', detail: '', items: [{ label: 'Allow', description: 'run this call once', optionId: 'y', kind: 'allow_once' }] });
  });

  it('names the answer on the card', () => {
    expect(['allow_once', 'allow_always', 'reject_once', 'reject_always', 'cancelled'].map((k) => decisionWord(k as 'allow_once'))).toEqual(['allowed', 'always allowed', 'denied', 'never allowed', 'withdrawn']);
  });
});

describe('server errors', () => {
  it('no model configured: the setting where --model goes', () => {
    const e = promptError('No model is configured. Start ferret with --model PROVIDER/MODEL');
    expect(e.text).toContain('Chimera has no model to use');
    expect(e.actions).toEqual([{ label: 'Open Settings', setting: 'chimera.args' }, { label: 'Show Log' }]);
  });

  it('no API key: the environment setting', () => {
    expect(promptError('anthropic/claude-sonnet-4-5: no API key; set ANTHROPIC_API_KEY').actions[0]).toEqual({ label: 'Open Settings', setting: 'chimera.env' });
  });

  it('anything else: the log', () => {
    expect(promptError('provider timed out').actions).toEqual([{ label: 'Show Log' }]);
  });

  it('a command that does not exist: the command setting', () => {
    const err = Object.assign(new Error('spawn chimera ENOENT'), { code: 'ENOENT' });
    expect(spawnError('chimera', err)).toMatchObject({ text: expect.stringContaining('the program was not found on PATH'), actions: [{ setting: 'chimera.command' }] });
  });

  it('a crash: how it ended, its last words, and the log', () => {
    expect(exitError(1, null, 'boom')).toEqual({ text: 'The Chimera server exited with code 1. Last output: boom', actions: [{ label: 'Show Log' }, { label: 'Open Settings', setting: 'chimera.args' }] });
    expect(exitError(null, 'SIGKILL', undefined).text).toBe('The Chimera server was killed (SIGKILL).');
    expect(handshakeError('the server exited (code 2)').actions[0]).toEqual({ label: 'Open Settings', setting: 'chimera.args' });
  });
});

describe('server log lines', () => {
  it('finds the HTTP address in the listening line', () => {
    expect(listeningUrl('{"level":30,"name":"ferret","url":"http://127.0.0.1:43097","msg":"listening"}')).toBe('http://127.0.0.1:43097');
    expect(listeningUrl('{"msg":"session created","url":"x"}')).toBeUndefined();
    expect(listeningUrl('not json "listening"')).toBeUndefined();
  });

  it('reads pino lines as message and error', () => {
    expect(readableLogLine('{"msg":"turn failed","err":{"message":"boom"}}')).toBe('turn failed: boom');
    expect(readableLogLine('plain text')).toBe('plain text');
  });
});

describe('usageLine', () => {
  it('shows context use and the session cost', () => {
    expect(usageLine({ used: 1240, size: 200000, costUsd: 0.0017 })).toBe('context 1.2k / 200k tokens · $0.0017');
    expect(usageLine({ used: 15300, size: 200000, costUsd: 1.5 })).toBe('context 15k / 200k tokens · $1.50');
    expect(usageLine({ used: 12, size: 8000 })).toBe('context 12 / 8k tokens');
    expect(usageLine(undefined)).toBe('');
  });
});

describe('sessionItems', () => {
  it('lists newest first with the last used one on top', () => {
    const now = new Date('2026-12-01T12:00:00Z');
    const items = sessionItems(
      [
        { sessionId: 'a', updatedAt: '2026-12-01T11:55:00Z', title: 'fix tests', meta: { costUsd: 0.01, model: 'm' } },
        { sessionId: 'b', updatedAt: '2026-12-01T09:00:00Z' },
        { sessionId: 'c', updatedAt: '2026-11-28T12:00:00Z' },
      ],
      'b',
      now,
    );
    expect(items.map((i) => [i.sessionId, i.label, i.description, i.detail])).toEqual([
      ['b', '$(history) b', '3 h ago', 'last used in this workspace'],
      ['a', 'fix tests', '5 min ago · m · $0.0100', undefined],
      ['c', 'c', '3 d ago', undefined],
    ]);
  });
});

describe('promptError by code', () => {
  it('ACP -32000 (authentication required) points at the environment setting, whatever the message', () => {
    expect(promptError('authentication required', -32000).actions[0]).toEqual({ label: 'Open Settings', setting: 'chimera.env' });
  });
});
