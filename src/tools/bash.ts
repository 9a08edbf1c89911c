import { z } from 'zod';
import { bashApproval } from '../sandbox/bash-approval.js';
import { confineCommand, probeBwrap, BWRAP_INSTALL_HINT } from '../sandbox/confine.js';
import { detectViolation } from '../sandbox/violation.js';
import { defineTool, type ToolOutcome } from './define.js';
import { killTree } from './kill-tree.js';

/** Output kept per call (progress and result alike); the rest is drained and dropped. */
export const BASH_OUTPUT_CAP = 256 * 1024;
const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;

export const bashTool = defineTool({
  id: 'bash',
  description:
    'Run a bash command in the workspace. stdout and stderr stream back; the exit code is reported. ' +
    'Commands run in an OS sandbox unless the server runs with danger-full-access.',
  schema: z.object({
    command: z.string().min(1),
    timeout_ms: z.number().int().min(1).max(MAX_TIMEOUT_MS).optional(),
  }),
  kind: 'execute',
  effect: 'execute',
  title: (a) => a.command.split('\n')[0]!.slice(0, 120),
  approval: (a, rules) => bashApproval(a.command, rules),
  readMore: 'redirect the output to a file in the workspace and read it with read_file offset/limit, or narrow the command',
  async run(a, ctx): Promise<ToolOutcome> {
    if (ctx.sandbox !== 'danger-full-access') {
      const probe = await probeBwrap();
      if (!probe.ok) {
        return {
          status: 'failed',
          output: `bash: refused to run unconfined under the ${ctx.sandbox} sandbox: bubblewrap cannot start (${probe.reason}). ${BWRAP_INSTALL_HINT}`,
        };
      }
    }
    const spawn = confineCommand({ mode: ctx.sandbox, workspace: ctx.cwd, command: a.command, env: ctx.env });
    const { execa } = await import('execa'); // ~70 ms of start-up saved until the first command
    const child = execa(spawn.file, spawn.args, {
      cwd: ctx.cwd,
      env: spawn.env,
      extendEnv: false,
      detached: true, // own process group, so cancel and timeout kill everything it started
      stdin: 'ignore',
      buffer: false,
      reject: false,
      stripFinalNewline: false,
    });
    let kept = 0;
    let capReached = false;
    let output = '';
    let stderrText = '';
    const onData = (stream: 'stdout' | 'stderr') => (chunk: string) => {
      if (stream === 'stderr' && stderrText.length < 8192) stderrText += chunk;
      if (capReached) return;
      const room = BASH_OUTPUT_CAP - kept;
      const piece = chunk.length > room ? chunk.slice(0, room) : chunk;
      kept += piece.length;
      output += piece;
      if (piece) ctx.progress(stream, piece);
      if (chunk.length > room) capReached = true;
    };
    child.stdout?.setEncoding('utf8').on('data', onData('stdout'));
    child.stderr?.setEncoding('utf8').on('data', onData('stderr'));

    let timedOut = false;
    const kill = () => {
      killTree(child.pid);
      // A daemon that left the group may still hold the pipes; stop waiting on them.
      child.stdout?.destroy();
      child.stderr?.destroy();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, a.timeout_ms ?? DEFAULT_TIMEOUT_MS);
    ctx.signal.addEventListener('abort', kill, { once: true });
    if (ctx.signal.aborted) kill(); // cancelled while bubblewrap was probed or execa loaded
    const result = await child;
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', kill);
    // Children that detached from the group are gone with bwrap's PID namespace; unconfined
    // ones that kept the group still die here.
    killTree(child.pid);

    const exitCode = result.exitCode ?? null;
    let tail = '';
    if (capReached) tail += `\n[output capped at ${BASH_OUTPUT_CAP} bytes; the rest was dropped]`;
    if (timedOut) tail += `\n[timed out after ${a.timeout_ms ?? DEFAULT_TIMEOUT_MS} ms; process group killed]`;
    else if (ctx.signal.aborted) tail += '\n[cancelled; process group killed]';
    tail += `\n[exit code ${exitCode ?? `none, signal ${result.signal ?? 'unknown'}`}]`;

    if (exitCode !== 0 && spawn.confined) {
      const v = detectViolation(stderrText, ctx.sandbox, ctx.cwd);
      if (v) ctx.violation(v.kind === 'network' ? 'network access is blocked by the sandbox' : 'write blocked by the sandbox', v.path);
    }
    return {
      status: exitCode === 0 && !timedOut ? 'completed' : 'failed',
      output: output + tail,
      exitCode,
      capReached,
    };
  },
});
