import { confineCommand, scanWorkspace, startNetHolder, sweepWorkspace, type ConfinedSpawn } from '../sandbox/index.js';
import type { ToolContext, ToolOutcome } from './define.js';
import type { BackgroundChild } from './processes/process-table.js';
import { spawnBackground } from './spawner.js';

// bash with `background: true`: the same confinement and the same approval as a foreground call
// (the runner judged the command before run() was reached), but the call ends when the process has
// started, not when it ends. The session's process table owns it from then on.

/** How long the call waits for first output (or an early exit) before answering. */
const FIRST_LOOK_MS = 500;
/** How often a running background process's workspace is swept for what the host would run. */
const BACKGROUND_SWEEP_MS = 1000;

export async function startBackground(command: string, bwrap: string | undefined, ctx: ToolContext): Promise<ToolOutcome> {
  const table = ctx.processes;
  if (!table) return { status: 'failed', output: 'bash: background processes need a session to own them; run the command in the foreground' };
  const refused = table.refusal();
  if (refused) return { status: 'failed', output: `bash: not started: ${refused}` };
  // One network namespace for the session's commands from now on: a later call reaches this
  // process on loopback (net-holder.ts). Without it (no nsenter, a holder that failed) the process
  // still runs, but only its own commands reach it.
  let netnsPid: number | undefined;
  let netNote = '';
  if (bwrap !== undefined) {
    const env: Record<string, string> = { PATH: ctx.env['PATH'] ?? '/usr/bin:/bin' };
    netnsPid = await table.netns(() => startNetHolder(bwrap, env));
    if (netnsPid === undefined) netNote = '\n[note: the session has no shared network namespace, so later commands cannot reach this process over loopback]';
  }
  const scan = ctx.sandbox === 'workspace-write' ? await scanWorkspace(ctx.facts) : undefined;
  const startedAt = Date.now();
  let spawn: ConfinedSpawn;
  try {
    spawn = confineCommand({ host: ctx.facts.host, mode: ctx.sandbox, workspace: ctx.cwd, command, env: ctx.env, stdinSocket: true, ...(scan ? { scan } : {}), ...(netnsPid !== undefined ? { netnsPid } : {}) });
  } catch (err) {
    return { status: 'failed', output: `bash: could not start: ${err instanceof Error ? err.message : String(err)}` };
  }
  const child = spawnBackground(spawn.file, spawn.args, { cwd: ctx.cwd, env: spawn.env });
  // No retry of bwrap's own setup failure here (bash.ts's placeholder race): it shows as output.
  const listeners: ((stream: 'stdout' | 'stderr', text: string) => void)[] = [];
  const deliver = (stream: 'stdout' | 'stderr') => (s: string) => {
    for (const l of listeners) l(stream, s);
  };
  child.stdout.on('data', deliver('stdout'));
  child.stderr.on('data', deliver('stderr'));
  // While it runs, what it makes that the host would run (a nested .git with a hostile config, a
  // hook) is moved aside every second, not only when it ends: the person, an editor's git
  // extension or a later call would otherwise meet it for the process's whole lifetime.
  let sweeping = false;
  const sweepNow = async () => {
    if (!scan || sweeping) return;
    sweeping = true;
    try {
      for (const m of await sweepWorkspace(ctx.facts, scan, startedAt).catch(() => [])) for (const l of listeners) l('stderr', `\n[sandbox: ${m.reason}]\n`);
    } finally {
      sweeping = false;
    }
  };
  const sweeper = scan ? setInterval(() => void sweepNow(), BACKGROUND_SWEEP_MS) : undefined;
  sweeper?.unref();
  const done = (async () => {
    const r = await child;
    clearInterval(sweeper);
    await spawn.end(); // whatever it started that left its group (its cgroup)
    spawn.release();
    // What it made that the host would run (under workspace-write) is moved aside, as after any call.
    if (scan) for (const m of await sweepWorkspace(ctx.facts, scan, startedAt).catch(() => [])) for (const l of listeners) l('stderr', `\n[sandbox: ${m.reason}]\n`);
    return { exitCode: r.exitCode ?? null, ...(r.signal ? { signal: r.signal } : {}) };
  })();
  const bg: BackgroundChild = {
    onOutput: (fn) => listeners.push(fn),
    write: (text) => child.write(text),
    kill: () => {
      child.killTree();
      child.stdout.destroy();
      child.stderr.destroy();
    },
    done,
  };
  const info = table.add(bg, command, ctx.callId);
  // A first look: a command that fails at once (a typo, a port in use) says so in this call.
  let timer: NodeJS.Timeout | undefined;
  const exited = await Promise.race([done.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), FIRST_LOOK_MS)))]);
  clearTimeout(timer);
  const firstOut = table.read(info.id);
  const shown = firstOut?.text ? `\n${firstOut.text}` : '';
  if (exited) {
    return {
      status: info.exitCode === 0 ? 'completed' : 'failed',
      output: `background process ${info.id} already ended (exit code ${info.exitCode ?? 'none'})${shown}`,
      exitCode: info.exitCode ?? null,
    };
  }
  return {
    status: 'completed',
    output: `started background process ${info.id}; read its output with process_output, send input with process_input, stop it with process_kill${shown}${netNote}`,
  };
}
