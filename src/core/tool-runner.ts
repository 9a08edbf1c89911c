import { relative, resolve } from 'node:path';
import { classifyBash } from '../sandbox/classifier.js';
import { normalizeBash } from '../sandbox/normalize.js';
import { checkRealPath, realPathOf } from '../sandbox/paths.js';
import { decide, type PolicyVerdict } from '../sandbox/policy.js';
import { jsonSchemaOf, type Tool, type ToolContext } from '../tools/define.js';
import type { ToolSpec } from '../providers/provider.js';
import { ToolRegistry } from '../tools/registry.js';
import { errorText } from './errors.js';
import type { Session } from './session.js';
import type { ToolCall, ToolResult, ToolStatus } from './types.js';

export interface OfferedTool {
  tool: Tool;
  spec: ToolSpec;
}

const specCache = new WeakMap<Tool, ToolSpec>();

function registryOf(session: Session): ToolRegistry {
  const extra = session.configTools.length ? [...session.configTools, ...session.extraTools] : session.extraTools;
  return extra.length ? session.deps.tools.with(extra) : session.deps.tools;
}

/** What the model is offered: the plan agent sees only tools that read. */
export function offeredTools(session: Session): OfferedTool[] {
  return registryOf(session)
    .list()
    .filter((t) => session.state.mode !== 'plan' || t.effect === 'read')
    .map((tool) => {
      let spec = specCache.get(tool);
      if (!spec) {
        spec = { name: tool.id, description: tool.description, parameters: jsonSchemaOf(tool) };
        specCache.set(tool, spec);
      }
      return { tool, spec };
    });
}

/**
 * The one path every tool call takes (after Codex's orchestrator): validate, check the
 * sandbox, decide allow/ask/deny, ask if needed, run, report. A failure is a result the
 * model reads, never an exception.
 */
export async function runToolCall(session: Session, turnId: string, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
  const started = Date.now();
  const tool = registryOf(session).get(call.name);
  const name = tool?.id ?? call.name;
  const parsed = tool?.schema.safeParse(call.args);
  const args = parsed?.success ? (parsed.data as Record<string, unknown>) : call.args;
  // Each path the call names, resolved once: reported, judged by the sandbox and the rules, keyed, used.
  const reals = tool && parsed?.success ? tool.paths(parsed.data).map((p) => realPathOf(resolve(session.state.cwd, p))) : [];
  session.emit({
    type: 'tool_call_start',
    data: {
      turnId,
      callId: call.id,
      tool: name,
      args,
      kind: tool?.kind ?? 'other',
      title: tool && parsed?.success ? tool.title(parsed.data) : name,
      locations: reals.map((path) => ({ path })),
    },
  });
  const end = (status: ToolStatus, output: string, extra: { exitCode?: number | null; capReached?: boolean } = {}): ToolResult => {
    session.emit({
      type: 'tool_call_end',
      data: { callId: call.id, tool: name, status, output, durationMs: Date.now() - started, ...extra },
    });
    return { callId: call.id, name, status, output };
  };

  if (signal.aborted) return end('cancelled', 'cancelled before it ran');
  if (!tool) {
    const available = registryOf(session).list().map((t) => t.id).join(', ');
    if (session.deps.tools.isFiltered(call.name)) return end('denied', `${call.name} is not allowed on this server (--allowed-tools); available: ${available}`);
    return end('failed', `unknown tool "${call.name}"; available: ${available}`);
  }
  if (!parsed?.success) {
    const issue = parsed?.error.issues[0];
    return end('failed', `invalid arguments for ${name}: field ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  if (session.state.mode === 'plan' && tool.effect !== 'read') {
    return end('denied', `the plan agent cannot use ${name}: it proposes changes and does not make them`);
  }

  const data = parsed.data as Record<string, unknown>;
  const cwd = session.state.cwd;
  const sandbox = session.state.sandbox;
  let runArgs = data;
  const named = tool.paths(data);
  for (const [i, real] of reals.entries()) {
    const v = checkRealPath({ workspace: cwd, real, write: tool.effect === 'write', mode: sandbox });
    if (!v.ok) {
      session.emit({ type: 'sandbox_violation', data: { callId: call.id, tool: name, path: v.real, mode: sandbox, reason: v.reason } });
      return end('failed', `sandbox (${sandbox}) refused ${name}: ${v.reason}`);
    }
    // The tool works on the path that was checked, not on a name a symlink could re-point later.
    if (named[i] === data['path']) runArgs = { ...data, path: real };
  }

  const key = await auditKey(tool, data, reals);
  const verdict = await judge(session, tool, data, key, reals[0]);
  if (verdict.action === 'deny') {
    audit(session, name, key, 'deny', verdict.by, verdict);
    return end('denied', `ferret refused this call: ${verdict.reason}`);
  }
  if (verdict.action === 'ask') {
    const requestId = `perm_${call.id}`;
    session.emit({
      type: 'permission_requested',
      data: { requestId, callId: call.id, tool: name, args: data, risk: verdict.risk, reason: verdict.reason, ...(verdict.rule ? { rule: verdict.rule } : {}) },
    });
    const answer = await session.permissions.wait(requestId, signal);
    if (answer === 'cancelled') return end('cancelled', 'the turn was cancelled while waiting for permission');
    session.emit({ type: 'permission_resolved', data: { requestId, callId: call.id, decision: answer.decision, by: answer.by } });
    audit(session, name, key, answer.decision, 'person', verdict, answer.by);
    if (answer.decision === 'deny' || answer.decision === 'never') {
      return end('denied', `the user denied this ${name} call${answer.decision === 'never' ? ' and asked never to allow it' : ''}; do not retry it, ask the user what to do instead`);
    }
  } else {
    audit(session, name, key, 'allow', verdict.by, verdict);
  }

  const ctx: ToolContext = {
    cwd,
    callId: call.id,
    signal,
    sandbox,
    files: session.files,
    env: session.deps.env,
    progress: (stream, text) => session.emit({ type: 'tool_call_progress', data: { callId: call.id, stream, text } }),
    fileEdit: (e) => session.emit({ type: 'file_edit', data: { callId: call.id, ...e } }),
    fileOpen: (path, line) => session.emit({ type: 'file_open', data: { callId: call.id, path, ...(line !== undefined ? { line } : {}) } }),
    violation: (reason, path) =>
      session.emit({ type: 'sandbox_violation', data: { callId: call.id, tool: name, mode: sandbox, reason, ...(path ? { path } : {}) } }),
  };
  // A cancel that landed while the call was being judged must not let it start.
  if (signal.aborted) return end('cancelled', 'cancelled before it ran');
  try {
    const out = await tool.run(runArgs, ctx);
    if (signal.aborted) return end('cancelled', out.output, { exitCode: out.exitCode ?? null });
    return end(out.status, out.output, {
      ...(out.exitCode !== undefined ? { exitCode: out.exitCode } : {}),
      ...(out.capReached !== undefined ? { capReached: out.capReached } : {}),
    });
  } catch (err) {
    return end(signal.aborted ? 'cancelled' : 'failed', `${name} failed: ${errorText(err)}`);
  }
}

async function judge(session: Session, tool: Tool, args: Record<string, unknown>, key: string, firstReal: string | undefined): Promise<PolicyVerdict> {
  const cwd = session.state.cwd;
  const persisted = session.deps.audit.lookup(cwd, tool.id, key);
  const bash = tool.id === 'bash' ? await classifyBash(String(args['command']), session.deps.rules) : undefined;
  return decide({
    preset: session.state.approval,
    tool: tool.id,
    effect: tool.effect,
    rules: session.deps.rules,
    ...(firstReal !== undefined ? { path: relative(cwd, firstReal) } : {}),
    ...(bash ? { bash } : {}),
    ...(persisted ? { persisted } : {}),
  });
}

/** The key "always"/"never" persist under: normalized so quoting and spacing do not matter. */
async function auditKey(tool: Tool, args: Record<string, unknown>, paths: string[]): Promise<string> {
  if (tool.id === 'bash') return normalizeBash(String(args['command']));
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'path').sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify({ paths, ...rest });
}

function audit(session: Session, tool: string, key: string, decision: 'allow' | 'deny' | 'always' | 'never', by: 'person' | PolicyVerdict['by'], v: PolicyVerdict, who?: string): void {
  try {
    session.deps.audit.append({
      ts: new Date().toISOString(),
      sessionId: session.id,
      workspace: session.state.cwd,
      tool,
      key,
      decision,
      by,
      reason: v.reason,
      ...(who ? { who } : {}),
      ...(v.rule ? { rule: v.rule } : {}),
    });
  } catch (err) {
    session.deps.logger.error({ err }, 'audit log write failed');
  }
}
