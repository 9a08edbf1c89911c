import { describe, expect, it } from 'vitest';
import { ERROR_CODES, FerretError } from '../../core/index.js';
import { FERRET_RPC, toRpcError } from './errors.js';
import { RpcError } from './jsonrpc.js';

describe('ferret dialect error table', () => {
  it('every core code has a JSON-RPC code and a data.code; data says whether to retry', () => {
    for (const code of ERROR_CODES) {
      const row = FERRET_RPC[code];
      expect(Number.isInteger(row.rpc), code).toBe(true);
      const e = toRpcError(new FerretError(code, 'why', { field: 'x' }));
      expect(e).toMatchObject({ code: row.rpc, message: 'why', data: { code: row.code, field: 'x', retryable: new FerretError(code, '').retryable } });
    }
  });

  it('keeps the codes clients and docs have always seen', () => {
    const wire = Object.fromEntries(ERROR_CODES.map((c) => [c, [FERRET_RPC[c].rpc, FERRET_RPC[c].code]]));
    expect(wire).toEqual({
      invalid_params: [-32602, 'invalid_params'],
      session_not_found: [-32001, 'session_not_found'],
      session_busy: [-32002, 'session_busy'],
      session_loading: [-32002, 'session_busy'],
      session_elsewhere: [-32002, 'session_busy'],
      writer_unreachable: [-32002, 'session_busy'],
      permission_not_found: [-32003, 'permission_not_found'],
      already_decided: [-32004, 'already_decided'],
      model_unavailable: [-32005, 'model_unavailable'],
      auth_required: [-32010, 'auth_required'],
      workspace_not_found: [-32009, 'not_found'],
      storage: [-32006, 'storage'],
      storage_unavailable: [-32006, 'storage'],
      internal: [-32603, 'internal'],
    });
  });

  it('keeps typed data (the owner) and passes RpcErrors through; anything else is -32603', () => {
    expect(toRpcError(new FerretError('session_elsewhere', 'b writes it', { owner: 'b' })).data).toEqual({ code: 'session_busy', owner: 'b', retryable: false });
    const rpc = new RpcError(-32601, 'Method not found: x');
    expect(toRpcError(rpc)).toBe(rpc);
    expect(toRpcError(new Error('boom'))).toMatchObject({ code: -32603, message: 'Internal error: boom' });
  });
});
