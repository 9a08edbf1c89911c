import { isFerretError } from '../../../core/index.js';
import { toRpcError } from '../errors.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, RpcError } from '../jsonrpc.js';

/** ACP v1's "resource not found" (unknown session: `data.sessionId`). */
export const ACP_RESOURCE_NOT_FOUND = -32002;
/** ACP v1's "authentication required": the model's provider has no key (see initialize's authMethods). */
export const ACP_AUTH_REQUIRED = -32000;

/**
 * Core error → ACP v1 error. v1 gives -32002 a meaning (resource not found), so ferret's own
 * application codes are remapped here; anything else goes through the shared table.
 */
export function toAcpError(err: unknown): RpcError {
  if (!isFerretError(err)) return toRpcError(err);
  const data = { ...err.data, 'ferret.dev': { code: err.code } };
  switch (err.code) {
    case 'session_not_found':
    case 'not_found':
      return new RpcError(ACP_RESOURCE_NOT_FOUND, err.message, data);
    case 'invalid_params':
    case 'model_unavailable':
      return new RpcError(JSONRPC_INVALID_PARAMS, err.message, data);
    case 'auth_required':
      return new RpcError(ACP_AUTH_REQUIRED, err.message, data);
    case 'payload_too_large':
    case 'unsupported_media_type':
    case 'not_acceptable':
    case 'request_timeout':
    case 'already_decided':
    case 'permission_not_found':
    case 'session_busy':
    case 'storage':
    case 'unauthorized':
    case 'forbidden':
    case 'internal':
      return new RpcError(JSONRPC_INTERNAL_ERROR, err.message, data);
  }
}
