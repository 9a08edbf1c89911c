import { ERRORS, isFerretError, type ErrorCode, type TurnResult } from '../../../core/index.js';
import { FERRET_RPC, toRpcError } from '../errors.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, RpcError } from '../jsonrpc.js';
import { META_NS } from './session-config.js';

/** ACP v1's "resource not found" (unknown session: `data.sessionId`). */
export const ACP_RESOURCE_NOT_FOUND = -32002;
/** ACP v1's "authentication required": the model's provider has no key (see initialize's authMethods). */
export const ACP_AUTH_REQUIRED = -32000;

/** What the call site knows that an error's v1 `data` names. */
export interface V1ErrorContext {
  /** The session a request named (resource not found: `data.sessionId`). */
  sessionId?: string;
  /** The auth method ids (authentication required: `data.authMethods`). */
  authMethods?: () => string[];
  /** More for `data._meta`-style `ferret.dev` (the turn a failed prompt ran). */
  meta?: Record<string, unknown>;
}

interface V1Row {
  rpc: number;
  /** What v1 says of this error in `data`, beside ferret's own under `ferret.dev`. */
  data?: (ctx: V1ErrorContext) => Record<string, unknown>;
}

/**
 * One table: core error code → ACP v1 error. v1 gives -32002 a meaning (resource not found) and
 * -32000 another (authentication required), so ferret's own application codes are not used here:
 * what v1 has no word for is -32603 with ferret's code under `data["ferret.dev"]`.
 */
export const ACP_V1_RPC: Record<ErrorCode, V1Row> = {
  invalid_params: { rpc: JSONRPC_INVALID_PARAMS },
  session_not_found: { rpc: ACP_RESOURCE_NOT_FOUND, data: (c) => (c.sessionId !== undefined ? { sessionId: c.sessionId } : {}) },
  session_busy: { rpc: JSONRPC_INTERNAL_ERROR },
  session_loading: { rpc: JSONRPC_INTERNAL_ERROR },
  session_elsewhere: { rpc: JSONRPC_INTERNAL_ERROR },
  writer_unreachable: { rpc: JSONRPC_INTERNAL_ERROR },
  permission_not_found: { rpc: JSONRPC_INTERNAL_ERROR },
  already_decided: { rpc: JSONRPC_INTERNAL_ERROR },
  model_unavailable: { rpc: JSONRPC_INVALID_PARAMS },
  auth_required: { rpc: ACP_AUTH_REQUIRED, data: (c) => (c.authMethods ? { authMethods: c.authMethods() } : {}) },
  workspace_not_found: { rpc: ACP_RESOURCE_NOT_FOUND },
  storage: { rpc: JSONRPC_INTERNAL_ERROR },
  storage_unavailable: { rpc: JSONRPC_INTERNAL_ERROR },
  internal: { rpc: JSONRPC_INTERNAL_ERROR },
};

/** A core error code and its sentence → the v1 error, by the table. */
function v1Error(code: ErrorCode, message: string, details: Record<string, unknown> | undefined, ctx: V1ErrorContext): RpcError {
  const row = ACP_V1_RPC[code];
  const ours = { ...ctx.meta, code: FERRET_RPC[code].code, retryable: ERRORS[code].retryable };
  return new RpcError(row.rpc, message, { ...details, ...row.data?.(ctx), [META_NS]: ours });
}

/** Any thrown value → the v1 error: core errors by the table, the rest as the ferret dialect would. */
export function toAcpError(err: unknown, ctx: V1ErrorContext = {}): RpcError {
  if (!isFerretError(err)) return toRpcError(err);
  return v1Error(err.code, err.message, err.data, ctx);
}

/** A prompt whose turn ended with `error`: its code by the same table; a turn without a code is -32603. */
export function turnError(r: TurnResult, ctx: V1ErrorContext = {}): RpcError {
  const meta = { turnId: r.turnId, stopReason: 'error', ...ctx.meta };
  const message = r.error ?? (r.errorCode === 'auth_required' ? 'authentication required' : 'the turn failed');
  if (!r.errorCode) return new RpcError(JSONRPC_INTERNAL_ERROR, message, { [META_NS]: meta });
  return v1Error(r.errorCode, message, undefined, { ...ctx, meta });
}
