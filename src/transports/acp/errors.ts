import { FerretError, type ErrorCode } from '../../core/index.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, JSONRPC_INVALID_REQUEST, RpcError } from './jsonrpc.js';

// One table: core error code → JSON-RPC error code. Application codes live above -32000.
const RPC_CODE: Record<ErrorCode, number> = {
  invalid_params: JSONRPC_INVALID_PARAMS,
  session_not_found: -32001,
  session_busy: -32002,
  permission_not_found: -32003,
  already_decided: -32004,
  model_unavailable: -32005,
  auth_required: -32010,
  storage: -32006,
  unauthorized: -32007,
  forbidden: -32008,
  not_found: -32009,
  payload_too_large: JSONRPC_INVALID_REQUEST,
  unsupported_media_type: JSONRPC_INVALID_REQUEST,
  not_acceptable: JSONRPC_INVALID_REQUEST,
  request_timeout: JSONRPC_INVALID_REQUEST,
  internal: JSONRPC_INTERNAL_ERROR,
};

export function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof FerretError) return new RpcError(RPC_CODE[err.code], err.message, { code: err.code, ...err.data });
  return new RpcError(JSONRPC_INTERNAL_ERROR, `Internal error: ${err instanceof Error ? err.message : String(err)}`);
}
