import type { Logger } from 'pino';
import { createCore, toFerretUpdate, type SessionHandle, type SessionEvent, type StopReason } from '../core/index.js';
import { coreOptions, type AgentOptions } from './agent-options.js';
import type { Environment } from './environment.js';

export interface ExecOptions extends AgentOptions {
  prompt: string;
  /** One JSON event per line on stdout instead of the final text. */
  json: boolean;
  /** Continue this session instead of starting one. */
  resume: string | undefined;
}

/** Exit codes a CI script can branch on (documented in docs/agent.md). */
export const EXIT = {
  end_turn: 0,
  error: 1,
  usage: 2,
  max_steps: 3,
  denied: 4,
  max_tokens: 5,
  refusal: 6,
  cancelled: 130,
} as const;

/**
 * `chimera ferret exec`: one turn in --cwd, like `codex exec` or `claude -p`. Progress goes to
 * stderr, the final assistant text (or, with --json, every event) to stdout. Nobody is there to
 * answer a permission question, so one that comes up is denied, and the exit code says so.
 */
export async function exec(opts: ExecOptions, logger: Logger, env: Environment): Promise<number> {
  const core = createCore({ logger, ...coreOptions(opts, env) });
  let session: SessionHandle;
  try {
    // No model that can run: a set-up error (exit 2), said once, and no empty session left behind.
    const problem = opts.resume ? undefined : core.manager.modelProblem();
    if (problem !== undefined) {
      process.stderr.write(`ferret exec: ${problem}\n`);
      await core.close();
      return EXIT.usage;
    }
    session = opts.resume ? await core.manager.open(opts.resume) : core.manager.create({});
  } catch (err) {
    await core.close();
    throw err;
  }
  let denied = 0;
  const show = opts.json ? jsonLine : progress;
  const off = session.subscribe((e) => {
    show(e);
    if (e.type === 'permission_requested' && opts.permissionTimeoutMs === undefined) {
      denied++;
      process.stderr.write(`ferret exec: denied ${e.data.tool} (${e.data.reason}); use --approval full-auto or a rule to allow it\n`);
      const id = e.data.requestId;
      setImmediate(() => session.respondPermission(id, 'deny', 'exec (no one to ask)')); // after the runner waits for it
    } else if (e.type === 'permission_resolved' && e.data.by === 'timeout') denied++;
  });
  process.stderr.write(`ferret exec: session ${session.id} in ${session.state.cwd} (model ${session.state.model})\n`);
  // Ctrl-C cancels the turn (its commands' process groups are killed); a second one leaves at once.
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(EXIT.cancelled);
    interrupted = true;
    session.cancel();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  // A reader that went away (`| head`) ends the turn instead of crashing on EPIPE.
  const onStdoutError = () => session.cancel();
  process.stdout.on('error', onStdoutError);
  try {
    const result = await session.startTurn(opts.prompt, { origin: 'exec' }).done;
    if (!opts.json) process.stdout.write(result.message.text.endsWith('\n') || result.message.text === '' ? result.message.text : `${result.message.text}\n`);
    // Without --json the error's notice was already printed as a progress line: said once.
    if (result.error && opts.json) process.stderr.write(`ferret exec: ${result.error}\n`);
    return exitCode(result.stopReason, denied);
  } finally {
    off();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    process.stdout.off('error', onStdoutError);
    await core.close();
  }
}

/**
 * --json: the very objects the SSE stream's `loop_event` frames and the ferret dialect carry (one
 * definition, `FerretUpdate` in the OpenAPI document), one per line; events those streams do not
 * send are not sent here either. The last line is `turn_end`, the turn's summary.
 */
function jsonLine(e: SessionEvent): void {
  const u = toFerretUpdate(e);
  if (u) process.stdout.write(`${JSON.stringify(u)}\n`);
}

function exitCode(stop: StopReason, denied: number): number {
  if (stop === 'end_turn' && denied > 0) return EXIT.denied;
  return EXIT[stop];
}

const PLAN_MARK = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;

/** A line on stderr for what a person watching a CI log wants to see. */
function progress(e: SessionEvent): void {
  const line = (s: string) => void process.stderr.write(`${s}\n`);
  switch (e.type) {
    case 'tool_call_start':
      return line(`${e.data.parentCallId !== undefined ? '    ' : ''}▸ ${e.data.title}`);
    case 'tool_call_end':
      return line(`${e.data.parentCallId !== undefined ? '    ' : ''}  ${e.data.status === 'completed' ? '✓' : '✗'} ${e.data.tool} ${e.data.status} (${e.data.durationMs} ms)${e.data.exitCode !== undefined && e.data.exitCode !== null ? `, exit ${e.data.exitCode}` : ''}`);
    case 'notice':
      return line(`${e.data.level}: ${e.data.text}`);
    case 'sandbox_violation':
      return line(`  sandbox (${e.data.mode}): ${e.data.reason}`);
    case 'cost_update':
      return e.data.totalUsd > 0 ? line(`  cost so far: $${e.data.totalUsd.toFixed(4)}`) : undefined;
    case 'turn_end':
      return line(`■ ${e.data.stopReason}`);
    case 'session_created':
    case 'turn_start':
    case 'message_chunk':
    case 'reasoning_chunk':
    case 'message':
    case 'tool_call_running':
    case 'tool_call_progress':
    case 'permission_requested':
    case 'permission_resolved':
    case 'approval_changed':
    case 'mode_changed':
    case 'model_changed':
    case 'reasoning_changed':
    case 'file_edit':
    case 'file_open':
    case 'history_compacted':
    case 'session_info':
    case 'subagent_chunk':
    case 'process_output':
      return undefined;
    case 'process_started':
      return line(`  ⧗ background ${e.data.processId}: ${e.data.command.split('\n')[0]!.slice(0, 120)}`);
    case 'process_exited':
      return line(`  ⧗ ${e.data.processId} ended (${e.data.reason}${e.data.exitCode !== null ? `, exit ${e.data.exitCode}` : ''})`);
    case 'checkpoint':
      return undefined;
    case 'rewound':
      return line(`  ${e.data.op}: ${e.data.turns} turn(s), ${e.data.code?.files.length ?? 0} file(s)`);
    case 'plan_updated':
      return line(`  plan: ${e.data.entries.map((p) => `${PLAN_MARK[p.status]} ${p.content}`).join('  ')}`);
  }
}
