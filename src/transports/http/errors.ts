import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isFerretError, type ErrorCode } from '../../core/index.js';

// Every HTTP status lives here: the HTTP transport's own errors, the table for core errors, and
// Fastify's own 4xx. Every error leaves as {"error":{"code","message"}}.

/** The `code` strings an HTTP error body carries: a closed set, the OpenAPI `ErrorCode` enum (in this order). */
export const HTTP_ERROR_CODES = [
  'invalid_params',
  'session_not_found',
  'session_busy',
  'permission_not_found',
  'already_decided',
  'model_unavailable',
  'auth_required',
  'storage',
  'unauthorized',
  'forbidden',
  'not_found',
  'payload_too_large',
  'unsupported_media_type',
  'not_acceptable',
  'request_timeout',
  'internal',
] as const;

export type HttpErrorCode = (typeof HTTP_ERROR_CODES)[number];

/** What only HTTP can get wrong (auth, routes, media types, slow clients): the transport's own vocabulary. */
export const HTTP_ONLY_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  not_acceptable: 406,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
} as const satisfies Partial<Record<HttpErrorCode, number>>;

export type HttpOnlyCode = keyof typeof HTTP_ONLY_STATUS;

/** An error of the HTTP transport itself; its status comes from `HTTP_ONLY_STATUS`. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly code: HttpOnlyCode,
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return HTTP_ONLY_STATUS[this.code];
  }
}

/**
 * One table: core error code → HTTP status and the body's `code`. The body keeps the codes clients
 * have always seen: a session loading, written elsewhere or whose writer does not answer reads
 * `session_busy` (409, 409, 503: retry the 503), a store that is away reads `storage`.
 */
export const HTTP_OF_CORE: Record<ErrorCode, { status: number; code: HttpErrorCode }> = {
  invalid_params: { status: 400, code: 'invalid_params' },
  session_not_found: { status: 404, code: 'session_not_found' },
  session_busy: { status: 409, code: 'session_busy' },
  session_loading: { status: 409, code: 'session_busy' },
  session_elsewhere: { status: 409, code: 'session_busy' },
  writer_unreachable: { status: 503, code: 'session_busy' },
  permission_not_found: { status: 404, code: 'permission_not_found' },
  already_decided: { status: 409, code: 'already_decided' },
  model_unavailable: { status: 422, code: 'model_unavailable' },
  auth_required: { status: 422, code: 'auth_required' },
  workspace_not_found: { status: 404, code: 'not_found' },
  storage: { status: 500, code: 'storage' },
  storage_unavailable: { status: 500, code: 'storage' },
  internal: { status: 500, code: 'internal' },
};

/** Fastify's own 4xx (body too large, wrong media type, …) keep their status and get our code for it. */
const CODE_OF_STATUS = new Map<number, HttpOnlyCode>(Object.entries(HTTP_ONLY_STATUS).map(([code, status]) => [status, code as HttpOnlyCode]));

export interface HttpErrorBody {
  error: { code: HttpErrorCode; message: string };
}

/** The one JSON error shape of the HTTP transport. */
export function errorBody(code: HttpErrorCode, message: string): HttpErrorBody {
  return { error: { code, message } };
}

/** Sends a FerretError or HttpError (or anything thrown) as the JSON error with its mapped status. */
export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body, retryAfter } = toHttpError(err);
  if (retryAfter !== undefined) void reply.header('retry-after', retryAfter);
  return reply.code(status).type('application/json').send(body);
}

/**
 * Any thrown value → (status, body): ours by their tables, Fastify's own 4xx by their status, the
 * rest 500. A fleet server that runs the session and does not answer is a 503 to retry shortly
 * (another server takes the session over once its lease runs out).
 */
export function toHttpError(err: unknown): { status: number; body: HttpErrorBody; retryAfter?: string } {
  if (isFerretError(err)) {
    const { status, code } = HTTP_OF_CORE[err.code];
    // Retry-After where waiting a moment is the whole answer (the fleet gives the session to another server).
    return { status, body: errorBody(code, err.message), ...(err.code === 'writer_unreachable' ? { retryAfter: '1' } : {}) };
  }
  if (err instanceof HttpError) return { status: err.status, body: errorBody(err.code, err.message) };
  const fe = err as Partial<FastifyError> & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(err)) {
    const issue = err.validation[0];
    const path = issue?.instancePath.replace(/^\//, '').replaceAll('/', '.') ?? '';
    const where = fe.validationContext ?? 'body';
    const field = path ? `${where === 'body' ? '' : `${where}.`}${path}` : where;
    return { status: 400, body: errorBody('invalid_params', `${field}: ${issue?.message ?? 'invalid'}`) };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code = CODE_OF_STATUS.get(fe.statusCode) ?? 'invalid_params';
    return { status: fe.statusCode, body: errorBody(code, fe.message ?? 'bad request') };
  }
  return { status: 500, body: errorBody('internal', `internal error: ${err instanceof Error ? err.message : String(err)}`) };
}

/** Fastify error handler: logs server faults, answers everything in the one shape. */
export function httpErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status } = toHttpError(err);
  // A writer that does not answer (503) is the fleet's weather, not this server's fault.
  if (isFerretError(err, 'writer_unreachable')) req.log.warn({ err, instance: err.data?.owner }, 'the instance that owns the session did not answer');
  else if (status >= 500) req.log.error({ err }, 'request failed');
  return sendError(reply, err);
}
