import { existsSync } from 'node:fs';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { v1PerTest, type V1Client } from '../support/acp-v1-client.js';
import { writeScript } from '../support/temp.mjs';

// Editor terminals through the official SDK client: an editor that advertises `terminal: true`
// sees a bash call's output in its own terminal (it really runs what ferret asks, as Zed does),
// while the command itself runs in ferret's sandbox: the editor is asked to run only a viewer,
// never the command, and a write outside the workspace is still blocked.

const OUTSIDE = `/etc/ferret-terminal-probe-${process.pid}`;
const CALLS = {
  responses: [
    { chunks: ['say'], toolCalls: [{ id: 'call_say', name: 'bash', arguments: { command: 'echo hello-from-the-sandbox; echo second line >&2' } }] },
    { chunks: ['escape'], toolCalls: [{ id: 'call_out', name: 'bash', arguments: { command: `echo x > ${OUTSIDE}` } }] },
    { chunks: ['done'] },
  ],
};

type Update = Extract<acp.SessionUpdate, { sessionUpdate: 'tool_call_update' }>;
const updatesOf = (c: V1Client, sessionId: string, callId: string) =>
  c.of(sessionId).filter((u): u is Update => u.sessionUpdate === 'tool_call_update' && u.toolCallId === callId);
const terminalIds = (ups: Update[]) =>
  ups.flatMap((u) => u.content ?? []).flatMap((x) => (x.type === 'terminal' ? [x.terminalId] : []));

async function until(what: string, f: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !f(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('editor terminals (ACP v1, official SDK client)', () => {
  const { env, start } = v1PerTest();

  it('terminal: true: the call carries terminal content, the editor runs only a viewer that shows the output, and the command stays confined', async () => {
    const model = writeScript(env.home, 'model.json', CALLS);
    const c = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--sandbox', 'workspace-write']);
    await c.initialize({ fs: { readTextFile: false, writeTextFile: false }, terminal: true });
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    const r = await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'say hello, then try outside' }] });
    expect(r.stopReason).toBe('end_turn');

    const said = updatesOf(c, s.sessionId, 'call_say');
    const [term] = terminalIds(said);
    expect(term).toBeDefined();
    // The end keeps the terminal as the call's content.
    expect(said.at(-1)).toMatchObject({ status: 'completed', content: [{ type: 'terminal', terminalId: term }] });
    // The editor was asked to run a viewer of a file, never the command itself.
    const creates = c.terminalCalls.filter((t) => t.method === 'terminal/create');
    expect(creates.length).toBe(2);
    for (const t of creates) {
      expect(t.params['command']).toBe('tail');
      expect(JSON.stringify(t.params)).not.toContain('echo');
    }
    // What the editor's terminal printed: the command's output, streamed by ferret.
    const shown = c.terminals.get(term!)!;
    await until('the terminal to show the output', () => shown.output.includes('second line'));
    expect(shown.output).toContain('hello-from-the-sandbox');
    // Each viewer is released once its call ended.
    await until('both terminals released', () => c.terminalCalls.filter((t) => t.method === 'terminal/release').length === 2);

    // The write outside the workspace failed in the sandbox, as without terminals.
    const out = updatesOf(c, s.sessionId, 'call_out');
    expect(out.at(-1)?.status).toBe('failed');
    expect(existsSync(OUTSIDE)).toBe(false);
    const outTerm = c.terminals.get(terminalIds(out)[0]!)!;
    await until('the failure in the terminal', () => /Read-only file system/.test(outTerm.output));
  });

  it('without the capability nothing changes: no terminal method is called and the output is text', async () => {
    const model = writeScript(env.home, 'model.json', CALLS);
    const c = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--sandbox', 'workspace-write']);
    await c.initialize({ fs: { readTextFile: false, writeTextFile: false }, terminal: false });
    const s = await c.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    await c.agent.request('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: 'say hello' }] });
    expect(c.terminalCalls).toEqual([]);
    const said = updatesOf(c, s.sessionId, 'call_say');
    expect(terminalIds(said)).toEqual([]);
    const last = said.at(-1)!;
    expect(last.content?.[0]).toMatchObject({ type: 'content', content: { type: 'text' } });
    expect(JSON.stringify(last.content)).toContain('hello-from-the-sandbox');
    expect(existsSync(OUTSIDE)).toBe(false);
  });
});
