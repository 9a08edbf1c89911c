import { describe, expect, it } from 'vitest';
import { ERROR_CODES, FerretError } from '../../../core/index.js';
import { FERRET_RPC } from '../errors.js';
import { ACP_AUTH_REQUIRED, ACP_RESOURCE_NOT_FOUND, ACP_V1_RPC, toAcpError, turnError } from './errors.js';

describe('ACP v1 error table', () => {
  it('every core code has a v1 JSON-RPC code; ferret\'s code and retryable go under data["ferret.dev"]', () => {
    for (const code of ERROR_CODES) {
      const e = toAcpError(new FerretError(code, 'why', { field: 'x' }));
      expect(e, code).toMatchObject({ code: ACP_V1_RPC[code].rpc, message: 'why', data: { field: 'x', 'ferret.dev': { code: FERRET_RPC[code].code, retryable: new FerretError(code, '').retryable } } });
    }
  });

  it('uses v1\'s own codes where v1 has a word for the error, -32603 elsewhere (never ferret\'s -32002 busy)', () => {
    const v1 = Object.fromEntries(ERROR_CODES.map((c) => [c, ACP_V1_RPC[c].rpc]));
    expect(v1).toEqual({
      invalid_params: -32602,
      session_not_found: ACP_RESOURCE_NOT_FOUND,
      session_busy: -32603,
      session_loading: -32603,
      session_elsewhere: -32603,
      writer_unreachable: -32603,
      permission_not_found: -32603,
      already_decided: -32603,
      model_unavailable: -32602,
      auth_required: ACP_AUTH_REQUIRED,
      workspace_not_found: ACP_RESOURCE_NOT_FOUND,
      storage: -32603,
      storage_unavailable: -32603,
      internal: -32603,
    });
  });

  it('names the session of a resource not found and the auth methods of authentication required', () => {
    const ctx = { sessionId: 'nope', authMethods: () => ['env:OPENAI_API_KEY'] };
    expect(toAcpError(new FerretError('session_not_found', 'no session nope'), ctx).data).toMatchObject({ sessionId: 'nope' });
    expect(toAcpError(new FerretError('auth_required', 'set OPENAI_API_KEY'), ctx).data).toMatchObject({ authMethods: ['env:OPENAI_API_KEY'] });
    expect(toAcpError(new Error('boom'))).toMatchObject({ code: -32603 });
  });

  it('maps a failed turn by the same table, with the turn under data["ferret.dev"]', () => {
    const failed = { turnId: 't1', stopReason: 'error', message: { role: 'assistant', text: '' } } as const;
    expect(turnError({ ...failed, error: 'bad arg', errorCode: 'invalid_params' })).toMatchObject({ code: -32602, message: 'bad arg', data: { 'ferret.dev': { turnId: 't1', stopReason: 'error', code: 'invalid_params' } } });
    expect(turnError({ ...failed, errorCode: 'auth_required' }, { authMethods: () => ['env:X'] })).toMatchObject({ code: -32000, message: 'authentication required', data: { authMethods: ['env:X'], 'ferret.dev': { turnId: 't1' } } });
    expect(turnError({ ...failed, error: 'the model failed' })).toMatchObject({ code: -32603, message: 'the model failed', data: { 'ferret.dev': { turnId: 't1', stopReason: 'error' } } });
  });
});
