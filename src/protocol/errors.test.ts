import { describe, expect, expectTypeOf, it } from 'vitest';
import { ERROR_CODES, ERRORS, FerretError, isErrorCode, isFerretError, type ErrorCode } from './errors.js';

describe('core error codes', () => {
  it('ERROR_CODES is the table, in its order, and every code says whether it is retryable', () => {
    expect(ERROR_CODES).toEqual(Object.keys(ERRORS));
    for (const code of ERROR_CODES) expect(typeof ERRORS[code].retryable, code).toBe('boolean');
  });

  it('the HTTP-only codes are not core codes', () => {
    for (const code of ['unauthorized', 'forbidden', 'not_found', 'payload_too_large', 'unsupported_media_type', 'not_acceptable', 'request_timeout']) {
      expect(isErrorCode(code), code).toBe(false);
    }
    expect(isErrorCode('session_elsewhere')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(3)).toBe(false);
  });

  it('retryable comes from the code, never from the throw site', () => {
    const retryable = ERROR_CODES.filter((c) => new FerretError(c, 'x').retryable);
    expect(retryable).toEqual(['session_busy', 'session_loading', 'writer_unreachable', 'storage_unavailable']);
  });

  it('isFerretError with a code narrows to that code and types its data', () => {
    const err: unknown = new FerretError('session_elsewhere', 'written by b', { owner: 'b' });
    expect(isFerretError(err)).toBe(true);
    expect(isFerretError(err, 'session_busy')).toBe(false);
    expect(isFerretError(new Error('x'))).toBe(false);
    if (!isFerretError(err, 'session_elsewhere')) throw new Error('not narrowed');
    expectTypeOf(err.data).toEqualTypeOf<{ owner?: string; pid?: number } | undefined>();
    expect(err.data?.owner).toBe('b');
    expectTypeOf<FerretError['code']>().toEqualTypeOf<ErrorCode>();
  });
});
