import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { isFerretError, type Decision, type EventData, type SessionHandle } from '../../../core/index.js';
import type { DialectContext } from '../dialect.js';
import { RpcError } from '../jsonrpc.js';
import { META_NS } from './session-config.js';
import type { Card } from './updates.js';

/** The four ACP option kinds; each optionId is the ferret decision it stands for. */
const OPTIONS: PermissionOption[] = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
  { optionId: 'never', name: 'Never allow', kind: 'reject_always' },
];

const DECISIONS = new Set<string>(['allow', 'always', 'deny', 'never']);

/**
 * A client's answer → a ferret decision. `cancelled` is ACP's "the prompt turn was cancelled"
 * (agent-shell sends it, then session/cancel): the turn stops, as Claude's adapter and codex-acp do.
 */
export function decisionOf(r: unknown): Decision | 'cancelled' {
  const outcome = (r as RequestPermissionResponse | null)?.outcome;
  if (outcome?.outcome === 'selected' && DECISIONS.has(outcome.optionId)) return outcome.optionId as Decision;
  if (outcome?.outcome === 'cancelled') return 'cancelled';
  return 'deny';
}

export function permissionRequest(sessionId: string, d: EventData<'permission_requested'>, card: Card): RequestPermissionRequest {
  return {
    sessionId,
    // The card as announced (a client applying this update keeps the command as its title), with
    // the proposed diff and the reason; the arguments too, for clients that show them.
    // `locations` too: without them CodeCompanion joins the diff's absolute path to its cwd.
    toolCall: {
      toolCallId: d.callId,
      status: 'pending',
      title: card.title,
      kind: card.kind,
      content: card.content,
      ...(card.locations ? { locations: card.locations } : {}),
      rawInput: d.args,
    },
    options: OPTIONS,
    _meta: { [META_NS]: { requestId: d.requestId, tool: d.tool, risk: d.risk, reason: d.reason, ...(d.rule ? { rule: d.rule } : {}) } },
  };
}

/**
 * Asks this client and settles the core's pending request with its answer. Another client
 * (or the turn's cancellation) may have settled it first: then `signal` withdraws the question.
 */
export function askPermission(ctx: DialectContext, session: SessionHandle, d: EventData<'permission_requested'>, card: Card, onCancelled: () => void, signal?: AbortSignal): void {
  ctx
    .request('session/request_permission', permissionRequest(session.id, d, card), signal)
    .then(
      (r): Decision | undefined => {
        const decision = decisionOf(r);
        if (decision !== 'cancelled') return decision;
        onCancelled();
        return undefined;
      },
      // The client answered with an error (withdrawn, unsupported): that is no consent. A closed
      // connection is no answer at all; other attached clients may still decide.
      (err: unknown): Decision | undefined => (err instanceof RpcError ? 'deny' : undefined),
    )
    .then((decision) => decision && session.respondPermission(d.requestId, decision, `acp-v1:${ctx.connectionId}`))
    .catch((err: unknown) => {
      if (isFerretError(err) && (err.code === 'already_decided' || err.code === 'permission_not_found')) return;
      ctx.logger.warn({ err, requestId: d.requestId }, 'permission request to the ACP client failed');
    });
}
