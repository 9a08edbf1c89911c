import { isFerretError, type ErrorCode } from '../../core/index.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, RpcError } from './jsonrpc.js';

/** The `code` strings ferret's JSON-RPC errors carry in `data.code` (both dialects; the codes clients have always seen). */
export type FerretWireCode =
  | 'invalid_params'
  | 'session_not_found'
  | 'session_busy'
  | 'permission_not_found'
  | 'already_decided'
  | 'model_unavailable'
  | 'auth_required'
  | 'storage'
  | 'not_found'
  | 'internal';

/**
 * One table for the ferret dialect: core error code → JSON-RPC error code and the `data.code` string.
 * Application codes live above -32000. A session being loaded, written elsewhere or whose writer
 * does not answer is -32002 `session_busy` as it always was (`data.retryable` tells them apart
 * for a client that retries).
 */
export const FERRET_RPC: Record<ErrorCode, { rpc: number; code: FerretWireCode }> = {
  invalid_params: { rpc: JSONRPC_INVALID_PARAMS, code: 'invalid_params' },
  session_not_found: { rpc: -32001, code: 'session_not_found' },
  session_busy: { rpc: -32002, code: 'session_busy' },
  session_loading: { rpc: -32002, code: 'session_busy' },
  session_elsewhere: { rpc: -32002, code: 'session_busy' },
  writer_unreachable: { rpc: -32002, code: 'session_busy' },
  permission_not_found: { rpc: -32003, code: 'permission_not_found' },
  already_decided: { rpc: -32004, code: 'already_decided' },
  model_unavailable: { rpc: -32005, code: 'model_unavailable' },
  auth_required: { rpc: -32010, code: 'auth_required' },
  workspace_not_found: { rpc: -32009, code: 'not_found' },
  storage: { rpc: -32006, code: 'storage' },
  storage_unavailable: { rpc: -32006, code: 'storage' },
  internal: { rpc: JSONRPC_INTERNAL_ERROR, code: 'internal' },
};

/** Any thrown value → the ferret dialect's JSON-RPC error: core errors by the table, the rest -32603. */
export function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (isFerretError(err)) {
    const { rpc, code } = FERRET_RPC[err.code];
    return new RpcError(rpc, err.message, { code, ...err.data, retryable: err.retryable });
  }
  return new RpcError(JSONRPC_INTERNAL_ERROR, `Internal error: ${err instanceof Error ? err.message : String(err)}`);
}
