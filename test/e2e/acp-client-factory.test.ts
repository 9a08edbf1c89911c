// Third-party client: acp-factory (npm, its own ACP SDK 0.18 ClientSideConnection), driven as its
// README shows: register an agent command, spawn, createSession, iterate prompt(), cancel, loadSession.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AgentFactory, type AgentHandle, type ExtendedSessionUpdate } from 'acp-factory';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { statusRuns, backwardStatuses } from '../support/acp-status.js';
import { CHIMERA } from '../support/spawn.mjs';
import { tempEnv, writeScript } from '../support/temp.mjs';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/mcp-server.mjs');
type Up = ExtendedSessionUpdate & { toolCallId?: string; status?: string | null };
const text = (ups: Up[]) => ups.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');

async function collect(it: AsyncIterable<ExtendedSessionUpdate>, onUpdate?: (u: Up) => void): Promise<Up[]> {
  const out: Up[] = [];
  for await (const raw of it) {
    const u: Up = raw;
    out.push(u);
    onUpdate?.(u);
  }
  return out;
}

describe('acp-factory drives ferret unmodified', () => {
  let env: { home: string; ws: string; cleanup: () => void };
  const agents: AgentHandle[] = [];
  let errors: MockInstance<typeof console.error>;
  let warnings: MockInstance<typeof console.warn>;
  beforeEach(() => {
    env = tempEnv();
    errors = vi.spyOn(console, 'error');
    warnings = vi.spyOn(console, 'warn');
  });
  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.close()));
    errors.mockRestore();
    warnings.mockRestore();
    env.cleanup();
  });

  it('a new file, a command, an MCP tool, allow and reject, Stop, the / menu, the model option, and load in a new process', async () => {
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(
      join(env.home, 'ferret', 'config.json'),
      JSON.stringify({ providers: { local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test', models: { alpha: {}, beta: {} } } } }),
    );
    const model = writeScript(env.ws, 'model.json', {
      contextWindow: 200_000, // a known window: usage_update goes out (none for an unknown one)
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
        { chunks: ['Back again.'] }, // the next model call after the cancelled turn
      ],
    });
    AgentFactory.register('ferret', {
      command: process.execPath,
      args: [CHIMERA, 'ferret', 'serve', '--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'suggest'],
      env: { CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'warn' },
    });
    const reads: string[] = [];
    const writes: string[] = [];
    const rejected = join(env.ws, 'rejected.txt');
    const asked: string[] = [];
    const spawnOpts = {
      permissionMode: 'callback' as const,
      onPermissionRequest: async (req: { toolCall: { toolCallId: string }; options: { optionId: string; kind: string }[] }) => {
        const kind = req.toolCall.toolCallId === 'call_reject_me' ? 'reject_once' : 'allow_once';
        asked.push(req.toolCall.toolCallId);
        return { outcome: { outcome: 'selected' as const, optionId: req.options.find((o) => o.kind === kind)!.optionId } };
      },
      onFileRead: async (p: string) => (reads.push(p), readFile(p, 'utf8')),
      onFileWrite: async (p: string, content: string) => void (writes.push(p), writeFileSync(p, content)),
    };
    const agent = await AgentFactory.spawn('ferret', spawnOpts);
    agents.push(agent);
    expect(agent.capabilities.loadSession).toBe(true);
    const mcpServers = [{ name: 'fixture', command: process.execPath, args: [FIXTURE], env: [] }];
    const session = await agent.createSession(env.ws, { mcpServers });
    expect(session.modes).toEqual(['code', 'plan']);

    const turn = await collect(session.prompt('create new.txt'));
    // The `/` menu came right after session/new, so acp-factory yields it first.
    const menu = turn.find((u) => u.sessionUpdate === 'available_commands_update') as { availableCommands: { name: string }[] } | undefined;
    expect(menu?.availableCommands.map((c) => c.name)).toEqual(['compact', 'init', 'status', 'approval', 'mode', 'model', 'reasoning', 'undo', 'redo', 'rewind']);
    expect(text(turn)).toBe('Creating new.txt.Done.');
    expect(readFileSync(join(env.ws, 'new.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(rejected)).toBe(false);
    expect(writes).toEqual([join(env.ws, 'new.txt')]);
    expect(reads).toEqual([]); // neither new file is read through the editor
    const calls = turn.filter((u) => u.sessionUpdate === 'tool_call');
    const runs = statusRuns(turn);
    expect(calls.map((c) => runs.get(c.toolCallId))).toEqual([
      ['pending', 'in_progress', 'completed'],
      ['pending', 'in_progress', 'completed'],
      ['pending', 'in_progress', 'completed'],
      ['pending', 'failed'],
    ]);
    expect(asked).toEqual([calls[0]!.toolCallId, calls[2]!.toolCallId, 'call_reject_me']);
    expect(JSON.stringify(turn)).toContain('echo: ping');
    expect(turn.at(-1)?.sessionUpdate).toBe('usage_update'); // the turn's last update reached the caller

    // Stop during `sleep 30`.
    let t0 = 0;
    const stop = collect(session.prompt('wait'), (u) => {
      if (u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress' && !t0) {
        t0 = Date.now();
        void session.cancel();
      }
    });
    const stopped = await stop;
    expect(t0).toBeGreaterThan(0);
    expect(Date.now() - t0).toBeLessThan(1000);
    const sleepCall = stopped.find((u) => u.sessionUpdate === 'tool_call')!;
    expect(statusRuns(stopped).get(sleepCall.toolCallId)).toEqual(['pending', 'in_progress', 'failed']);

    // `/mode plan` switches the mode; acp-factory shows the config change and the command's words,
    // the turn's last update (its prompt() races the answer against its update queue: ferret sends
    // the answer in a later write, so nothing queued is dropped).
    const modeSet = await collect(session.prompt('/mode plan'));
    expect(text(modeSet)).toBe('mode: plan');
    const modeOpts = modeSet.find((u) => u.sessionUpdate === 'config_option_update') as { configOptions: { id: string; currentValue: string }[] } | undefined;
    expect(modeOpts?.configOptions.find((o) => o.id === 'mode')?.currentValue).toBe('plan');
    await agent.close();
    agents.splice(agents.indexOf(agent), 1);

    // Reopen: a new process loads the session; the replay arrives before the next prompt's updates.
    const again = await AgentFactory.spawn('ferret', spawnOpts);
    agents.push(again);
    const loaded = await again.loadSession(session.id, env.ws, mcpServers as never); // its d.ts names another McpServer shape
    expect(loaded.modes).toEqual(['code', 'plan']);
    const after = await collect(loaded.prompt('go on'));
    expect(text(after)).toBe('Creating new.txt.Done.mode: planBack again.');
    const replayRuns = statusRuns(after);
    expect(after.filter((u) => u.sessionUpdate === 'tool_call').map((c) => replayRuns.get(c.toolCallId)!.at(-1))).toEqual(['completed', 'completed', 'completed', 'failed', 'failed']);

    // acp-factory lists models from the legacy unstable `models` field, which ferret does not send
    // (v1 removed it); the model picker is the `model` config option, reachable on its connection.
    expect(loaded.models).toEqual([]);
    const set = await again.getConnection().setSessionConfigOption({ sessionId: session.id, configId: 'model', value: 'local/alpha' });
    const modelOpt = (set.configOptions as { id: string; currentValue: string; options: { value: string }[] }[]).find((o) => o.id === 'model')!;
    expect(modelOpt.currentValue).toBe('local/alpha');
    expect(modelOpt.options.map((o) => o.value)).toEqual(expect.arrayContaining([`scripted:${model}`, 'local/alpha', 'local/beta']));
    expect(backwardStatuses(turn)).toEqual([]);
    expect(backwardStatuses(after)).toEqual([]);
    // No error line from the client (its SDK logs rejected notifications with console.error), no extension noise.
    expect(errors).not.toHaveBeenCalled();
    expect(warnings).not.toHaveBeenCalled();
    expect(JSON.stringify([...turn, ...stopped, ...after])).not.toContain('_ferret/');
  }, 45_000);
});
