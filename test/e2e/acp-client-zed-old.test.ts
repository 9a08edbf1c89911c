// Third-party client: the old @zed-industries/agent-client-protocol@0.4.5 (the package before the
// SDK moved to @agentclientprotocol/sdk), its ClientSideConnection over ferret's stdio, unmodified.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as old from '@zed-industries/agent-client-protocol';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { backwardStatuses, statusRuns } from '../support/acp-status.js';
import { spawnFerret, stopChild } from '../support/spawn.mjs';
import { StderrLog } from '../support/stderr-log.mjs';
import { tempEnv, writeScript } from '../support/temp.mjs';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/mcp-server.mjs');
type Up = { sessionUpdate: string; toolCallId?: string; status?: string | null; content?: { type: string; text?: string }; availableCommands?: { name: string }[] };
const text = (ups: Up[]) => ups.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content?.type === 'text' ? u.content.text : '')).join('');

async function until(pred: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !pred(); ) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One editor built on the old package: records what it was sent, answers as a person would. */
function openOld(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawnFerret(args, { env });
  const log = new StderrLog(child.stderr);
  const updates: { sessionId: string; update: Up }[] = [];
  const reads: string[] = [];
  const writes: string[] = [];
  const ext: string[] = [];
  let decide: (id: string) => 'allow_once' | 'reject_once' = () => 'allow_once';
  const client: old.Client = {
    requestPermission: async (p) => ({ outcome: { outcome: 'selected', optionId: p.options.find((o) => o.kind === decide(p.toolCall.toolCallId))!.optionId } }),
    sessionUpdate: async (n) => void updates.push(n as never),
    readTextFile: async (p) => (reads.push(p.path), { content: await readFile(p.path, 'utf8') }),
    writeTextFile: async (p) => (writes.push(p.path), writeFileSync(p.path, p.content), {}),
    extNotification: async (method) => void ext.push(method),
  };
  const stream = old.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const conn = new old.ClientSideConnection(() => client, stream);
  return {
    conn,
    updates,
    reads,
    writes,
    ext,
    log,
    of: (sid: string) => updates.filter((u) => u.sessionId === sid).map((u) => u.update),
    setDecide: (f: typeof decide) => void (decide = f),
    close: async () => {
      child.stdin.end();
      await stopChild(child, null);
    },
  };
}

describe('@zed-industries/agent-client-protocol 0.4.5 (the old client) drives ferret unmodified', () => {
  let env: { home: string; ws: string; cleanup: () => void };
  const open: { close: () => Promise<void> }[] = [];
  let errors: MockInstance<typeof console.error>;
  beforeEach(() => {
    env = tempEnv();
    errors = vi.spyOn(console, 'error').mockImplementation(() => {}); // counted below, not printed
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
    errors.mockRestore();
    env.cleanup();
  });

  it('a new file, a command, an MCP tool, allow and reject, Stop, the / menu, mode and model, and load in a new process', async () => {
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        {
          chunks: ['Creating new.txt.'],
          toolCalls: [
            { name: 'write_file', arguments: { path: 'new.txt', content: 'new\n' } },
            { name: 'bash', arguments: { command: 'cat new.txt' } },
            { name: 'mcp__fixture__echo', arguments: { text: 'ping' } },
            { id: 'call_reject_me', name: 'write_file', arguments: { path: 'rejected.txt', content: 'no\n' } },
          ],
        },
        { chunks: ['Done.'] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] },
        { chunks: ['Back again.'] },
      ],
    });
    const other = writeScript(env.ws, 'other.json', { responses: [] });
    // The 0.4 library cannot parse the updates ACP added later (usage_update, config_option_update)
    // and ferret cannot tell it from a current client (both say protocolVersion 1): its user starts
    // ferret with --acp-legacy (here) or FERRET_ACP_LEGACY=1 (the reopen below).
    const args = ['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'suggest'];
    const cenv = { CHIMERA_HOME: env.home };
    const c = openOld([...args, '--acp-legacy'], cenv);
    open.push(c);
    c.setDecide((id) => (id === 'call_reject_me' ? 'reject_once' : 'allow_once'));
    const init = await c.conn.initialize({ protocolVersion: old.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false } });
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const mcpServers = [{ name: 'fixture', command: process.execPath, args: [FIXTURE], env: [] }];
    const s = await c.conn.newSession({ cwd: env.ws, mcpServers });
    const sid = s.sessionId;
    // The old package knows `modes` (not config options): its mode picker shows code and plan.
    expect((s as { modes?: { availableModes: { id: string }[] } }).modes?.availableModes.map((m) => m.id)).toEqual(['code', 'plan']);

    const r = await c.conn.prompt({ sessionId: sid, prompt: [{ type: 'text', text: 'create new.txt' }] });
    expect(r.stopReason).toBe('end_turn');
    const menu = c.of(sid).find((u) => u.sessionUpdate === 'available_commands_update');
    expect(menu?.availableCommands?.map((x) => x.name)).toEqual(['compact', 'init', 'status', 'approval', 'mode', 'model', 'reasoning', 'undo', 'redo', 'rewind']);
    expect(text(c.of(sid))).toBe('Creating new.txt.Done.');
    expect(readFileSync(join(env.ws, 'new.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(join(env.ws, 'rejected.txt'))).toBe(false);
    expect(c.writes).toEqual([join(env.ws, 'new.txt')]);
    expect(c.reads).toEqual([]);
    const calls = c.of(sid).filter((u) => u.sessionUpdate === 'tool_call');
    const runs = statusRuns(c.of(sid));
    expect(calls.map((x) => runs.get(x.toolCallId!))).toEqual([
      ['pending', 'in_progress', 'completed'],
      ['pending', 'in_progress', 'completed'],
      ['pending', 'in_progress', 'completed'],
      ['pending', 'failed'],
    ]);

    // Stop during `sleep 30`.
    const sleeping = c.conn.prompt({ sessionId: sid, prompt: [{ type: 'text', text: 'wait' }] });
    await until(() => {
      const sleep = c.of(sid).filter((u) => u.sessionUpdate === 'tool_call')[4];
      return !!sleep && c.of(sid).some((u) => u.toolCallId === sleep.toolCallId && u.status === 'in_progress');
    });
    const t0 = Date.now();
    await c.conn.cancel({ sessionId: sid });
    expect((await sleeping).stopReason).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(1000);

    // The mode picker (session/set_mode) and `/model` with another scripted file.
    await c.conn.setSessionMode({ sessionId: sid, modeId: 'plan' });
    expect((await c.conn.prompt({ sessionId: sid, prompt: [{ type: 'text', text: `/model scripted:${other}` }] })).stopReason).toBe('end_turn');
    expect(c.of(sid).some((u) => u.sessionUpdate === 'current_mode_update')).toBe(true);
    await c.close();

    // Reopen in a new process: load replays the thread with final statuses.
    const d = openOld(args, { ...cenv, FERRET_ACP_LEGACY: '1' });
    open.push(d);
    await d.conn.initialize({ protocolVersion: old.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false } });
    await d.conn.loadSession({ sessionId: sid, cwd: env.ws, mcpServers });
    const replay = d.of(sid);
    expect(text(replay)).toContain('Creating new.txt.Done.');
    const replayRuns = statusRuns(replay);
    expect(replay.filter((u) => u.sessionUpdate === 'tool_call').map((x) => replayRuns.get(x.toolCallId!)!.at(-1))).toEqual(['completed', 'completed', 'completed', 'failed', 'failed']);
    expect(backwardStatuses(c.of(sid))).toEqual([]);
    expect(backwardStatuses(replay)).toEqual([]);
    expect([...c.ext, ...d.ext]).toEqual([]); // no `_ferret/*` noise
    // No error line: the library console.errors every notification its 0.4 schema cannot parse.
    expect(errors.mock.calls.map((a) => `${String(a[0])} ${JSON.stringify(a[1] ?? '')}`)).toEqual([]);
  }, 45_000);
});
