import { z } from 'zod';
import {
  bashApproval,
  BWRAP_INSTALL_HINT,
  COMMAND_LIMITS,
  confineCommand,
  detectViolation,
  gitMetadataNote,
  probeBwrap,
  refreshHomeSockets,
  scanWorkspace,
  sweepGitDir,
  sweepWorkspace,
  type ConfinedSpawn,
  type RuleSet,
  type WorkspaceScan,
} from '../sandbox/index.js';
import type { SandboxMode, ToolJudgement } from '../protocol/index.js';
import { defineTool, type ToolApproval, type ToolContext, type ToolOutcome } from './define.js';
import { BwrapFirstLine } from './bwrap-first-line.js';
import { execInHelper, spawnCommand, warmSpawner } from './spawner.js';
import { startBackground } from './bash-background.js';

// The output, time and parse limits: sandbox/limits.ts (all of a command's limits in one place).
const BASH_OUTPUT_CAP = COMMAND_LIMITS.outputKeptChars;
const BASH_PROGRESS_CAP = COMMAND_LIMITS.progressChars;
const DEFAULT_TIMEOUT_MS = COMMAND_LIMITS.defaultTimeoutMs;
const MAX_TIMEOUT_MS = COMMAND_LIMITS.maxTimeoutMs;
/**
 * Longer commands are not parsed: parsing and judging run synchronously on the event loop, at
 * roughly 50-150 µs per syntax node, so a dense 16 KiB script already costs most of a second.
 * They are asked for, as opaque (write a long file with write_file, a long script to a file).
 */
const JUDGE_MAX_CHARS = COMMAND_LIMITS.judgeMaxChars;
/** Deeper bracket nesting is not parsed either: the parse tree would overflow the stack. */
const JUDGE_MAX_DEPTH = COMMAND_LIMITS.judgeMaxDepth;

/** Why a command is too big to parse on the event loop, if it is. */
function tooBigToJudge(command: string): string | undefined {
  if (command.length > JUDGE_MAX_CHARS) return `the command is ${command.length} characters long, more than the ${JUDGE_MAX_CHARS} ferret parses`;
  let depth = 0;
  for (let i = 0; i < command.length; i++) {
    const c = command.charCodeAt(i);
    if (c === 40 || c === 123 || c === 91) depth++; // ( { [
    else if (c === 41 || c === 125 || c === 93) depth = Math.max(0, depth - 1);
    if (depth > JUDGE_MAX_DEPTH) return `the command nests brackets more than ${JUDGE_MAX_DEPTH} deep`;
  }
  return undefined;
}

/**
 * The classifier's verdict, except for what cannot be parsed safely on the event loop (too long,
 * too deep) or makes the parser fail: that is asked for with risk high, as an opaque command
 * (never run unattended, never allowed by a remembered "always"), and never crashes the call.
 */
async function judgeBash(command: string, rules: RuleSet, sandbox?: SandboxMode): Promise<ToolApproval> {
  const opaque = (reason: string): ToolApproval => {
    const judgement: ToolJudgement = { action: 'ask', risk: 'high', reason: `${reason}; it cannot be judged before it runs`, readOnly: false, opaque: true };
    return { key: command.trim(), judgement };
  };
  const big = tooBigToJudge(command);
  if (big) return opaque(big);
  try {
    const made = await bashApproval(command, rules);
    // What an approval would let it do to .git, said before the person answers (workspace-write only:
    // elsewhere .git is either read-only with everything else or not confined at all).
    const note = sandbox === 'workspace-write' && made.judgement.action === 'ask' ? gitMetadataNote(made.gitMetadata) : undefined;
    return {
      key: made.key,
      judgement: note ? { ...made.judgement, reason: `${made.judgement.reason} ${note}` } : made.judgement,
      ...(made.gitMetadata ? { repoMetadata: made.gitMetadata } : {}),
    };
  } catch (err) {
    return opaque(`the shell parser failed on it (${err instanceof Error ? err.message : String(err)})`);
  }
}

export const bashTool = defineTool({
  id: 'bash',
  description:
    'Run a bash command in the workspace. stdout and stderr stream back; the exit code is reported. ' +
    'Commands run in an OS sandbox unless the server runs with danger-full-access. ' +
    'With background: true the command keeps running after the call (a server, a watcher) and the call returns its process id.',
  schema: z.object({
    command: z.string().min(1),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional(),
    background: z
      .boolean()
      .optional()
      .describe('Start the command and return at once with a process id (a dev server, a watcher): it keeps running after the call. Read it with process_output, stop it with process_kill.'),
  }),
  kind: 'execute',
  effect: 'execute',
  title: (a) => a.command.split('\n')[0]!.slice(0, 120),
  approval: (a, rules, sandbox) => judgeBash(a.command, rules, sandbox),
  commandText: (a) => a.command,
  // A call before the idle warm-up got to them (a prompt sent at once): the helper's start and
  // the bubblewrap probe run while the classifier loads, not after it.
  prepare(sandbox, env, host) {
    warmSpawner(env);
    if (sandbox !== 'danger-full-access') probeBwrap(host, execInHelper).catch(() => {}); // run() awaits it again and reports
  },
  readMore: 'redirect the output to a file in the workspace and read it with read_file offset/limit, or narrow the command',
  async run(a, ctx): Promise<ToolOutcome> {
    if (ctx.sandbox !== 'danger-full-access') {
      await refreshHomeSockets(ctx.facts.host); // sockets under the home folder, masked in the sandbox
      const probe = await probeBwrap(ctx.facts.host, execInHelper);
      if (!probe.ok) {
        return {
          status: 'failed',
          output: `bash: refused to run unconfined under the ${ctx.sandbox} sandbox: bubblewrap cannot start (${probe.reason}). ${BWRAP_INSTALL_HINT}`,
        };
      }
    }
    if (a.background) {
      const probe = ctx.sandbox !== 'danger-full-access' ? await probeBwrap(ctx.facts.host, execInHelper) : undefined;
      return startBackground(a.command, probe?.ok ? probe.path : undefined, ctx);
    }
    // Under workspace-write: every .git in the tree (and what it points to) is made read-only for
    // the run, and what the run creates that the host would run is moved aside after it.
    // A person's approval of an everyday git command lets it write .git, never .git's code (confine.ts).
    const gitWritable = ctx.sandbox === 'workspace-write' && ctx.repoMetadataWritable === true;
    for (let attempt = 1; ; attempt++) {
      const scan = ctx.sandbox === 'workspace-write' ? await scanWorkspace(ctx.facts) : undefined;
      const startedAt = Date.now();
      // Once the session has background processes, its commands share their network namespace.
      const netnsPid = ctx.sandbox !== 'danger-full-access' ? ctx.processes?.sharedNetns() : undefined;
      const spawn = confineCommand({
        host: ctx.facts.host,
        mode: ctx.sandbox,
        workspace: ctx.cwd,
        command: a.command,
        env: ctx.env,
        ...(scan ? { scan } : {}),
        ...(netnsPid !== undefined ? { netnsPid } : {}),
        ...(gitWritable ? { gitWritable } : {}),
      });
      try {
        const r = await runConfined(spawn, a, ctx, scan, startedAt, attempt < PLACEHOLDER_ATTEMPTS, gitWritable);
        if (r !== 'retry') return r;
      } finally {
        spawn.release();
      }
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  },
});

/**
 * Another ferret process in the same workspace (a fleet's servers, two editors) removed or made
 * the `.git` placeholder bubblewrap was mounting, between our look and its mount: bwrap fails
 * before the command runs, so running it again is safe. The line is held back from the client.
 */
const PLACEHOLDER_ATTEMPTS = 4;
const PLACEHOLDER_RACE = /^bwrap: .*\.git\b/;

async function runConfined(
  spawn: ConfinedSpawn,
  a: { command: string; timeout_ms?: number | undefined },
  ctx: ToolContext,
  scan: WorkspaceScan | undefined,
  startedAt: number,
  mayRetry: boolean,
  gitWritable: boolean,
): Promise<ToolOutcome | 'retry'> {
  // Started by the command helper (spawner.ts): the fork does not block the server's event loop.
  // Own process group, so cancel and timeout kill everything it started.
  const child = spawnCommand(spawn.file, spawn.args, { cwd: ctx.cwd, env: spawn.env, keepChars: BASH_OUTPUT_CAP });
  let kept = 0;
  let streamed = 0;
  let capReached = false;
  let output = '';
  let stderrText = '';
  const first = new BwrapFirstLine();
  const onData = (stream: 'stdout' | 'stderr') => (chunk: string) => {
    if (spawn.confined && first.take(stream, chunk)) return;
    if (stream === 'stderr' && stderrText.length < 8192) stderrText += chunk;
    if (capReached) return;
    const room = BASH_OUTPUT_CAP - kept;
    const piece = chunk.length > room ? chunk.slice(0, room) : chunk;
    kept += piece.length;
    output += piece;
    if (piece && streamed < BASH_PROGRESS_CAP) {
      const shown = piece.length > BASH_PROGRESS_CAP - streamed ? piece.slice(0, BASH_PROGRESS_CAP - streamed) : piece;
      streamed += shown.length;
      ctx.progress(stream, shown);
    }
    if (chunk.length > room) capReached = true;
  };
  child.stdout?.setEncoding('utf8').on('data', onData('stdout'));
  child.stderr?.setEncoding('utf8').on('data', onData('stderr'));

  let timedOut = false;
  const kill = () => {
    child.killTree();
    // A daemon that left the group may still hold the pipes; stop waiting on them.
    child.stdout?.destroy();
    child.stderr?.destroy();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, a.timeout_ms ?? DEFAULT_TIMEOUT_MS);
  ctx.signal.addEventListener('abort', kill, { once: true });
  if (ctx.signal.aborted) kill(); // cancelled while bubblewrap was probed
  const result = await child;
  clearTimeout(timer);
  ctx.signal.removeEventListener('abort', kill);
  // Unconfined children that kept the group die here. A confined command's processes are gone
  // with bwrap's PID namespace (bwrap was the group's only member): nothing to kill, and the
  // group's id may already name someone else's.
  if (!spawn.confined) child.killTree();
  // And whatever left the group (`setsid cmd &`, a double fork): its cgroup, or its marker (confine.ts).
  const { limitHits } = await spawn.end();

  const exitCode = result.exitCode ?? null;
  const held = first.line;
  if (held !== undefined) {
    if (mayRetry && exitCode === 1 && output === '' && PLACEHOLDER_RACE.test(held) && !ctx.signal.aborted && !timedOut) return 'retry';
    onData('stderr')(first.release()!);
  }
  let tail = '';
  if (capReached) tail += `\n[output capped at ${BASH_OUTPUT_CAP} bytes; the rest was dropped]`;
  if (limitHits > 0) tail += `\n[the command reached its process limit (${COMMAND_LIMITS.pidsMax} processes and threads): ${limitHits} forks were refused]`;
  if (timedOut) tail += `\n[timed out after ${a.timeout_ms ?? DEFAULT_TIMEOUT_MS} ms; process group killed]`;
  else if (ctx.signal.aborted) tail += '\n[cancelled; process group killed]';
  // No exit code: killed by a signal, or never started / lost with the helper (then the message says which).
  if (exitCode !== null) tail += `\n[exit code ${exitCode}]`;
  else if (result.signal) tail += `\n[exit code none, signal ${result.signal}]`;
  else tail += `\n[no exit code: ${result.message ?? 'the command ended without an exit code or a signal'}]`;

  if (exitCode !== 0 && spawn.confined) {
    const v = detectViolation(stderrText, ctx.sandbox, ctx.cwd);
    if (v) ctx.violation(v.kind === 'network' ? 'network access is blocked by the sandbox' : 'write blocked by the sandbox', v.path);
  }
  let blocked = false;
  if (scan) {
    spawn.release(); // placeholders first: the sweep must not take them for the command's work
    const moved = await sweepWorkspace(ctx.facts, scan, startedAt);
    if (gitWritable) moved.push(...sweepGitDir(ctx.cwd, startedAt));
    for (const m of moved) {
      blocked = true;
      ctx.violation(m.reason, m.path);
      tail += `\n[sandbox: ${m.reason}]`;
    }
  }
  return {
    status: exitCode === 0 && !timedOut && !blocked && limitHits === 0 ? 'completed' : 'failed',
    output: output + tail,
    exitCode,
    capReached,
  };
}
