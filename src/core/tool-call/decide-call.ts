import { relative } from 'node:path';
import type { Decision } from '../../protocol/index.js';
import { callReach, decide, guardProtectedWrite, guardReads, protectedWrite, type PolicyVerdict } from '../../sandbox/index.js';
import type { Tool, ToolApproval } from '../../tools/define.js';
import type { TurnHost } from '../turn-host.js';
import { factsFor, rootOf } from './roots.js';

const STRICTNESS: Record<PolicyVerdict['action'], number> = { allow: 0, ask: 1, deny: 2 };

/** The names a tool's calls are also judged under: the rules a team wrote for the edit tools it had before. */
const JUDGED_ALSO_AS: Record<string, readonly string[]> = {
  apply_patch: ['write_file', 'edit_file'],
  multi_edit: ['edit_file'],
};

/** What the policy said of one call, with the key a person's "always"/"never" would persist under. */
export interface CallDecision {
  verdict: PolicyVerdict;
  key: string;
  /**
   * The call only reads: a tool whose effect is `read`, a command the classifier judged read-only
   * (never an opaque one), or a tool that declares it (MCP readOnlyHint). With an `allow` verdict
   * it may run beside the reply's other reads (loop/run-calls.ts).
   */
  readOnly: boolean;
  /** The approval said the call writes the repository's metadata in an everyday way (ToolApproval.repoMetadata). */
  repoMetadata?: 'ordinary' | 'kept-read-only';
}

/**
 * The tool's approval knowledge (its key and judgement, from one look at the call), the
 * persisted decision for that key under this workspace and sandbox, and the policy's verdict.
 */
export async function decideCall(host: TurnHost, tool: Tool, args: Record<string, unknown>, reals: string[]): Promise<CallDecision> {
  const { cwd, sandbox, approval: preset } = host.state;
  const approval: ToolApproval = tool.approval ? await tool.approval(args, host.deps.rules, sandbox, host.deps.sandbox) : { key: defaultKey(args, tool, reals) };
  // A log the fleet shares is read up to what other instances wrote (bounded); the file log answers at once.
  const audit = host.deps.audit;
  const persisted = audit.lookupAsync ? await audit.lookupAsync(cwd, tool.id, approval.key, sandbox) : audit.lookup(cwd, tool.id, approval.key, sandbox);
  // Every path the call touches is judged (a patch names several), and an edit tool is judged
  // under the older edit tools' names too, so a rule written for write_file or edit_file holds
  // for apply_patch and multi_edit: the strictest verdict wins.
  let verdict: PolicyVerdict | undefined;
  for (const name of [tool.id, ...(JUDGED_ALSO_AS[tool.id] ?? [])]) {
    for (const real of reals.length ? reals : [undefined]) {
      const v = decide({
        preset,
        tool: name,
        effect: tool.effect,
        rules: host.deps.rules,
        // A path in an extra root is judged as inside its own root, as one in cwd is (tool-call/roots.ts).
        ...(real !== undefined ? { path: relative(rootOf(host, real), real) } : {}),
        ...(approval.judgement ? { judgement: approval.judgement } : {}),
        ...(persisted && name === tool.id ? { persisted } : {}),
      });
      if (!verdict || STRICTNESS[v.action] > STRICTNESS[verdict.action]) verdict = v;
    }
  }
  if (!verdict) throw new Error('no verdict'); // unreachable: one name and one path at least
  const j = approval.judgement;
  const readOnly = tool.effect === 'read' || tool.declaresReadOnly === true || (j !== undefined && j.readOnly && !j.opaque && j.action !== 'deny');
  // What the call may read beyond the workspace (a secret location; outside, under read-only) is asked for.
  const command = tool.commandText?.(args);
  const reach = await callReach(host.deps.sandbox.workspace(cwd), sandbox, { reals, ...(command !== undefined ? { command } : {}) });
  const repoMetadata = approval.repoMetadata ? { repoMetadata: approval.repoMetadata } : {};
  return { verdict: guardReads(guardWrites(verdict, tool, reals, host), reach, { preset, sandbox }), key: approval.key, readOnly, ...repoMetadata };
}

/** A file tool writing what the host runs later (hooks, `.vscode/tasks.json`, …) is asked for (sandbox/paths/host-meta.ts). */
function guardWrites(verdict: PolicyVerdict, tool: Tool, reals: string[], host: TurnHost): PolicyVerdict {
  if (tool.effect !== 'write') return verdict;
  const { sandbox, approval: preset } = host.state;
  for (const real of reals) {
    const meta = protectedWrite(factsFor(host, real), real);
    if (meta) return guardProtectedWrite(verdict, { preset, sandbox, path: relative(rootOf(host, real), real) || real, meta });
  }
  return verdict;
}

/** A file tool's key: the real paths it touches and its other arguments, in a fixed order. */
function defaultKey(args: Record<string, unknown>, tool: Tool, reals: string[]): string {
  const pathNames = new Set(tool.pathArgs ?? []);
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !pathNames.has(k)).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify({ paths: reals, ...rest });
}

/** One line in the audit log per decision; a failed write is logged, never fatal to the call. */
export function recordDecision(
  host: TurnHost,
  call: { tool: string; key: string; verdict: PolicyVerdict },
  decision: Decision,
  by: 'person' | PolicyVerdict['by'],
  who?: string,
): void {
  try {
    host.deps.audit.append({
      ts: new Date().toISOString(),
      sessionId: host.id,
      workspace: host.state.cwd,
      sandbox: host.state.sandbox,
      tool: call.tool,
      key: call.key,
      decision,
      by,
      reason: call.verdict.reason,
      ...(who ? { who } : {}),
      ...(call.verdict.rule ? { rule: call.verdict.rule } : {}),
    });
  } catch (err) {
    host.deps.logger.error({ err }, 'audit log write failed');
  }
}
