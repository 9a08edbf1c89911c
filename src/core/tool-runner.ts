import { setImmediate as nextTurn } from 'node:timers/promises';
import { errorText, isInside, type FileAccess, type Image, type ToolCall, type ToolResult, type ToolStatus } from '../protocol/index.js';
import { beforeChange, mayChangeFiles } from './checkpoints/turn-checkpoints.js';
import type { ToolSpec } from '../providers/provider.js';
import { realPathOf } from '../sandbox/index.js';
import { jsonSchemaOf, type Tool, type ToolContext, type ToolOutcome } from '../tools/define.js';
import { nodeFiles } from '../tools/node-files.js';
import { decideCall, recordDecision, type CallDecision } from './tool-call/decide-call.js';
import { keepFullOutput, keptNote } from './tool-call/kept-output.js';
import { cutParts, joinCut } from './tool-call/output-cap.js';
import { placedExtras, placePaths, realPathsOf, type RealPath } from './tool-call/place-paths.js';
import { factsFor } from './tool-call/roots.js';
import { hiddenEditTools } from './edit-tools.js';
import type { OfferedTool, TurnHost } from './turn-host.js';

const specCache = new WeakMap<Tool, ToolSpec>();

/** What the model is offered: the plan agent sees only tools that read; the edit tools suit the model's family. */
export function offeredTools(host: TurnHost): OfferedTool[] {
  const hidden = hiddenEditTools(host.state.model, host.deps.editTools);
  return host
    .tools()
    .list()
    .filter((t) => (host.state.mode !== 'plan' || t.effect === 'read') && !hidden.has(t.id))
    .map((tool) => ({ tool, spec: toolSpec(tool) }));
}

/** A tool as the model is offered it; its JSON schema is built once per process (zod's toJSONSchema is slow the first time). */
export function toolSpec(tool: Tool): ToolSpec {
  let spec = specCache.get(tool);
  if (!spec) {
    spec = { name: tool.id, description: tool.description, parameters: jsonSchemaOf(tool) };
    specCache.set(tool, spec);
  }
  return spec;
}

export interface ToolCallRun {
  turnId: string;
  call: ToolCall;
  signal: AbortSignal;
  /** The turn's file seam (its origin's editor, or disk). */
  files: FileAccess;
}

type Ended = { status: ToolStatus; output: string; exitCode?: number | null; capReached?: boolean; images?: Image[] };

/** A call checked and judged, not yet run: what the scheduler needs to place it. */
export interface PreparedCall {
  /**
   * It may run beside other such calls: it only reads and its verdict is `allow` (no question to
   * ask), or it already ended (refused, invalid) and only has its end to report.
   */
  readonly concurrent: boolean;
  /** Asks a person if the verdict says so, runs the tool, reports the end: the call's result. */
  finish(): Promise<ToolResult>;
}

/** A call judged and ready to run. */
interface Judged {
  tool: Tool;
  /** As the model gave them (the permission request shows these). */
  args: Record<string, unknown>;
  /** With each path argument re-pointed to its checked real path (the tool runs on these). */
  placedArgs: Record<string, unknown>;
  /** The checked real paths of what the tool's `paths()` named. */
  placedExtras: Map<string, string>;
  decision: CallDecision;
  /** The session's kept output is read from disk, never from an editor's buffers. */
  readsKept: boolean;
}

/**
 * The one path every tool call takes (after Codex's orchestrator): validate, place its paths,
 * decide allow/ask/deny, ask if needed, run, report. Each step is one function below; a
 * failure is a result the model reads, never an exception, and every result is capped once.
 */
export async function runToolCall(host: TurnHost, run: ToolCallRun): Promise<ToolResult> {
  return (await prepareToolCall(host, run)).finish();
}

/**
 * The first half of a call: validate, report its start, place its paths, judge it. Nothing is
 * asked and nothing runs until `finish`, so the scheduler can judge the calls of a reply in
 * order and still run the reads among them together.
 */
export async function prepareToolCall(host: TurnHost, run: ToolCallRun): Promise<PreparedCall> {
  const started = Date.now();
  const { call } = run;
  const tool = host.tools().get(call.name);
  const name = tool?.id ?? call.name;
  const parsed = tool?.schema.safeParse(call.args);
  const args = parsed?.success ? (parsed.data as Record<string, unknown>) : call.args;
  // Each path argument resolved once: reported, judged by the sandbox and the rules, keyed, used.
  const reals = tool && parsed?.success ? realPathsOf(tool, args as Record<string, unknown>, host.state.cwd) : [];
  host.emit({
    type: 'tool_call_start',
    data: {
      turnId: run.turnId,
      callId: call.id,
      tool: name,
      args,
      kind: tool?.kind ?? 'other',
      title: tool && parsed?.success ? tool.title(parsed.data) : name,
      locations: reals.map(({ real }) => ({ path: real })),
    },
  });
  let judged: Judged | Ended;
  try {
    judged = tool && parsed?.success ? await judge(host, run, tool, args as Record<string, unknown>, reals) : invalid(host, call, tool, parsed);
  } catch (err) {
    // A judgement that throws (a parser overflow, a bug) still ends its call.
    judged = thrown(run, name, err);
  }
  if (!('decision' in judged)) {
    const ended = judged;
    return { concurrent: true, finish: () => report(host, run, tool, name, started, ended) };
  }
  const j = judged;
  const finish = async () => {
    let ended: Ended;
    try {
      ended = await settle(host, run, j);
    } catch (err) {
      ended = thrown(run, name, err); // a tool that throws still ends its call
    }
    return report(host, run, tool, name, started, ended);
  };
  return { concurrent: j.decision.verdict.action === 'allow' && j.decision.readOnly, finish };
}

function thrown(run: ToolCallRun, name: string, err: unknown): Ended {
  return { status: run.signal.aborted ? 'cancelled' : 'failed', output: `${name} failed: ${errorText(err)}` };
}

/** Caps the result (keeping the whole of a cut one in the session's folder) and reports the call's end. */
async function report(host: TurnHost, run: ToolCallRun, tool: Tool | undefined, name: string, started: number, ended: Ended): Promise<ToolResult> {
  const { call } = run;
  const cap = host.deps.toolOutputCap;
  const parts = cutParts(ended.output, cap);
  let how = tool?.readMore;
  if (parts && tool?.keepCutOutput !== false) {
    try {
      const kept = await keepFullOutput(host.deps.keptOutputDir(host.id), `${run.turnId}-${call.id}`, ended.output);
      how = keptNote(kept, cap, parts.head);
    } catch (err) {
      host.deps.logger.warn({ err, callId: call.id }, 'cannot keep a cut tool result');
    }
  }
  const capped = { output: parts ? joinCut(parts, cap, how) : ended.output, cut: parts !== undefined };
  const capReached = capped.cut || ended.capReached;
  host.emit({
    type: 'tool_call_end',
    data: {
      callId: call.id,
      tool: name,
      status: ended.status,
      output: capped.output,
      durationMs: Date.now() - started,
      ...(ended.exitCode !== undefined ? { exitCode: ended.exitCode } : {}),
      ...(capReached !== undefined ? { capReached } : {}),
    },
  });
  const images = ended.status === 'completed' && ended.images?.length ? { images: ended.images } : {};
  return { callId: call.id, name, status: ended.status, output: capped.output, ...images };
}

/** Unknown tool, a tool --allowed-tools took away, or arguments that fail its schema. */
function invalid(host: TurnHost, call: ToolCall, tool: Tool | undefined, parsed: ReturnType<Tool['schema']['safeParse']> | undefined): Ended {
  if (!tool) {
    const available = host.tools().list().map((t) => t.id).join(', ');
    if (host.deps.tools.isFiltered(call.name)) return { status: 'denied', output: `${call.name} is not allowed on this server (--allowed-tools); available: ${available}` };
    return { status: 'failed', output: `unknown tool "${call.name}"; available: ${available}` };
  }
  const issue = parsed?.error?.issues[0];
  return { status: 'failed', output: `invalid arguments for ${tool.id}: field ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}` };
}

async function judge(host: TurnHost, run: ToolCallRun, tool: Tool, args: Record<string, unknown>, reals: RealPath[]): Promise<Judged | Ended> {
  const { signal, call } = run;
  // A turn's start, a tool's preparation and a call's judgement are each a run of synchronous work
  // (the first command also loads the classifier and probes bubblewrap): between them the requests
  // that came in meanwhile (another client's /health, another session's answer) are served, so a
  // request waits for one of them at most, not for all three (~40 ms together when cold).
  await nextTurn();
  if (signal.aborted) return { status: 'cancelled', output: 'cancelled before it ran' };
  if (host.state.mode === 'plan' && tool.effect !== 'read') {
    return { status: 'denied', output: `the plan agent cannot use ${tool.id}: it proposes changes and does not make them` };
  }
  const { sandbox } = host.state;
  const keptDir = realPathOf(host.deps.keptOutputDir(host.id));
  // Each path is judged against the root that holds it: cwd, or one of the session's extra roots.
  const placed = placePaths(tool, args, reals, (real) => factsFor(host, real), sandbox, keptDir);
  if (!placed.ok) {
    host.emit({ type: 'sandbox_violation', data: { callId: call.id, tool: tool.id, path: placed.real, mode: sandbox, reason: placed.reason } });
    return { status: 'failed', output: `sandbox (${sandbox}) refused ${tool.id}: ${placed.reason}` };
  }
  tool.prepare?.(sandbox, host.deps.env, host.deps.sandbox);
  await nextTurn(); // (see above)
  const decision = await decideCall(host, tool, args, placed.reals);
  const readsKept = placed.reals.some((r) => isInside(keptDir, r));
  return { tool, args, placedArgs: placed.args, placedExtras: placedExtras(reals), decision, readsKept };
}

/** The second half: the gate (a question, if the verdict asks one), then the run. */
async function settle(host: TurnHost, run: ToolCallRun, j: Judged): Promise<Ended> {
  const { signal, call } = run;
  const { tool } = j;
  const gated = await gate(host, run, j);
  if (gated !== 'allowed' && gated !== 'allowed-by-person') return gated;
  // A cancel that landed while the call was being judged (or waited its turn) must not let it start.
  if (signal.aborted) return { status: 'cancelled', output: 'cancelled before it ran' };
  // The turn's first change records the workspace first, so /undo can put it back (a command the
  // classifier judged read-only, like a tool that reads, changes nothing and waits for no snapshot).
  // A tool that delegates writes (a task's subagent) records first too.
  if ((mayChangeFiles(tool.kind) && !j.decision.readOnly) || tool.delegatesWrites) await beforeChange(host, run.turnId);
  host.emit({ type: 'tool_call_running', data: { callId: call.id } });
  const files = j.readsKept ? nodeFiles : run.files;
  const out: ToolOutcome = await tool.run(j.placedArgs, { ...context(host, { ...run, files }, tool, j.placedExtras), repoMetadataWritable: gated === 'allowed-by-person' && j.decision.repoMetadata === 'ordinary' });
  if (signal.aborted) return { status: 'cancelled', output: out.output, exitCode: out.exitCode ?? null };
  return {
    status: out.status,
    output: out.output,
    ...(out.exitCode !== undefined ? { exitCode: out.exitCode } : {}),
    ...(out.capReached !== undefined ? { capReached: out.capReached } : {}),
    ...(out.images?.length ? { images: out.images } : {}),
  };
}

/**
 * Applies the verdict: refuse, or ask a person and wait (any client may answer). `allowed-by-person`:
 * a person let the call run (now, or by their persisted "always" for it), not a rule or the preset.
 */
async function gate(host: TurnHost, run: ToolCallRun, j: Judged): Promise<Ended | 'allowed' | 'allowed-by-person'> {
  const { tool, args, decision: d } = j;
  const { verdict } = d;
  const entry = { tool: tool.id, key: d.key, verdict };
  if (verdict.action === 'deny') {
    recordDecision(host, entry, 'deny', verdict.by);
    return { status: 'denied', output: `ferret refused this call: ${verdict.reason}` };
  }
  if (verdict.action === 'allow') {
    recordDecision(host, entry, 'allow', verdict.by);
    return verdict.by === 'persisted' ? 'allowed-by-person' : 'allowed';
  }
  const requestId = `perm_${run.call.id}`;
  const edit = await previewOf(host, run, j);
  host.emit({
    type: 'permission_requested',
    data: { requestId, callId: run.call.id, tool: tool.id, args, risk: verdict.risk, reason: verdict.reason, ...(verdict.rule ? { rule: verdict.rule } : {}), ...(edit ? { edit } : {}) },
  });
  const answer = await host.askPermission(requestId, run.signal);
  if (answer === 'cancelled') return { status: 'cancelled', output: 'the turn was cancelled while waiting for permission' };
  host.emit({ type: 'permission_resolved', data: { requestId, callId: run.call.id, decision: answer.decision, by: answer.by } });
  recordDecision(host, entry, answer.decision, 'person', answer.by);
  if (answer.decision === 'deny' || answer.decision === 'never') {
    const never = answer.decision === 'never' ? ' and asked never to allow it' : '';
    return { status: 'denied', output: `the user denied this ${tool.id} call${never}; do not retry it, ask the user what to do instead` };
  }
  return 'allowed-by-person';
}

/** The diff an edit would make, for the question; a preview that fails shows none (the call still asks). */
async function previewOf(host: TurnHost, run: ToolCallRun, j: Judged) {
  if (!j.tool.preview) return undefined;
  try {
    return await j.tool.preview(j.placedArgs, { cwd: host.state.cwd, files: j.readsKept ? nodeFiles : run.files, signal: run.signal });
  } catch (err) {
    host.deps.logger.debug({ err, callId: run.call.id }, 'edit preview failed');
    return undefined;
  }
}

function context(host: TurnHost, run: ToolCallRun, tool: Tool, placed: Map<string, string>): ToolContext {
  const { cwd, sandbox } = host.state;
  const callId = run.call.id;
  return {
    cwd,
    callId,
    signal: run.signal,
    sandbox,
    files: run.files,
    env: host.deps.env,
    facts: host.deps.sandbox.workspace(cwd),
    progress: (stream, text) => host.emit({ type: 'tool_call_progress', data: { callId, stream, text } }),
    fileEdit: (e) => host.emit({ type: 'file_edit', data: { callId, ...e } }),
    fileOpen: (path, line) => host.emit({ type: 'file_open', data: { callId, path, ...(line !== undefined ? { line } : {}) } }),
    violation: (reason, path) => host.emit({ type: 'sandbox_violation', data: { callId, tool: tool.id, mode: sandbox, reason, ...(path ? { path } : {}) } }),
    plan: (entries) => host.emit({ type: 'plan_updated', data: { entries, callId } }),
    ledger: host.readLedger,
    ...(host.processes ? { processes: host.processes } : {}),
    placed,
    ...(host.runSubagent ? { subagent: (req) => host.runSubagent!({ ...req, parentCallId: callId, turnId: run.turnId, signal: run.signal, files: run.files }) } : {}),
    ...(host.state.additionalDirectories?.length ? { roots: host.state.additionalDirectories } : {}),
  };
}
