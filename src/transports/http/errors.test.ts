import { describe, expect, it } from 'vitest';
import { ERROR_CODES, FerretError } from '../../core/index.js';
import { HTTP_ERROR_CODES, HTTP_OF_CORE, HTTP_ONLY_STATUS, HttpError, toHttpError, type HttpOnlyCode } from './errors.js';

describe('HTTP error tables', () => {
  it('every core code has a status and a body code from the closed set', () => {
    for (const code of ERROR_CODES) {
      const row = HTTP_OF_CORE[code];
      expect(row, code).toBeDefined();
      expect(row.status, code).toBeGreaterThanOrEqual(400);
      expect(row.status, code).toBeLessThan(600);
      expect(HTTP_ERROR_CODES, code).toContain(row.code);
      const retry = code === 'writer_unreachable' ? { retryAfter: '1' } : {};
      expect(toHttpError(new FerretError(code, 'why'))).toEqual({ status: row.status, body: { error: { code: row.code, message: 'why' } }, ...retry });
    }
  });

  it('the body codes are exactly the core ones on the wire and the HTTP-only ones (no code unused, none twice)', () => {
    const used = new Set<string>([...ERROR_CODES.map((c) => HTTP_OF_CORE[c].code), ...Object.keys(HTTP_ONLY_STATUS)]);
    expect([...used].sort()).toEqual([...HTTP_ERROR_CODES].sort());
    expect(new Set(HTTP_ERROR_CODES).size).toBe(HTTP_ERROR_CODES.length);
  });

  it('keeps the statuses and codes clients and docs have always seen', () => {
    expect(HTTP_OF_CORE.session_busy).toEqual({ status: 409, code: 'session_busy' });
    expect(HTTP_OF_CORE.session_loading).toEqual({ status: 409, code: 'session_busy' });
    expect(HTTP_OF_CORE.session_elsewhere).toEqual({ status: 409, code: 'session_busy' });
    expect(HTTP_OF_CORE.writer_unreachable).toEqual({ status: 503, code: 'session_busy' });
    expect(HTTP_OF_CORE.storage_unavailable).toEqual({ status: 500, code: 'storage' });
    expect(HTTP_OF_CORE.workspace_not_found).toEqual({ status: 404, code: 'not_found' });
  });

  it('the HTTP-only errors carry their own status; Fastify errors of that status get their code', () => {
    for (const [code, status] of Object.entries(HTTP_ONLY_STATUS) as [HttpOnlyCode, number][]) {
      expect(toHttpError(new HttpError(code, 'no'))).toEqual({ status, body: { error: { code, message: 'no' } } });
      expect(toHttpError(Object.assign(new Error('fastify says no'), { statusCode: status }))).toEqual({ status, body: { error: { code, message: 'fastify says no' } } });
    }
    expect(toHttpError(Object.assign(new Error('odd'), { statusCode: 418 })).body.error.code).toBe('invalid_params');
    expect(toHttpError(new Error('boom'))).toEqual({ status: 500, body: { error: { code: 'internal', message: 'internal error: boom' } } });
  });
});
