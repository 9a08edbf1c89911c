import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { FerretError, WriterUnavailableError, type ErrorCode } from '../../core/index.js';

// One table: core error code → HTTP status. Every error leaves as {"error":{"code","message"}}.
export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_params: 400,
  unauthorized: 401,
  forbidden: 403,
  session_not_found: 404,
  permission_not_found: 404,
  not_found: 404,
  not_acceptable: 406,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  session_busy: 409,
  already_decided: 409,
  model_unavailable: 422,
  auth_required: 422,
  storage: 500,
  internal: 500,
};

/** Fastify's own 4xx (body too large, wrong media type, …) keep their status and get our code for it. */
const CODE_OF_STATUS: Partial<Record<number, ErrorCode>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  406: 'not_acceptable',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

export interface HttpErrorBody {
  error: { code: ErrorCode; message: string };
}

/** The one JSON error shape of the HTTP transport. */
export function errorBody(code: ErrorCode, message: string): HttpErrorBody {
  return { error: { code, message } };
}

/** Sends a FerretError (or anything thrown) as the JSON error with its mapped status. */
export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body, retryAfter } = toHttpError(err);
  if (retryAfter !== undefined) void reply.header('retry-after', retryAfter);
  return reply.code(status).type('application/json').send(body);
}

/**
 * Any thrown value → (status, body): core errors by the table, Fastify's own 4xx by their status,
 * the rest 500. A fleet server that runs the session and does not answer is a 503 to retry
 * shortly (another server takes the session over once its lease runs out).
 */
export function toHttpError(err: unknown): { status: number; body: HttpErrorBody; retryAfter?: string } {
  if (err instanceof WriterUnavailableError) {
    const message = `the ferret instance that runs this session (${err.owner}) does not answer; another takes it over once its lease runs out: try again shortly`;
    return { status: 503, body: errorBody('session_busy', message), retryAfter: '1' };
  }
  if (err instanceof FerretError) return { status: HTTP_STATUS[err.code], body: errorBody(err.code, err.message) };
  const fe = err as Partial<FastifyError> & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(err)) {
    const issue = err.validation[0];
    const path = issue?.instancePath.replace(/^\//, '').replaceAll('/', '.') ?? '';
    const where = fe.validationContext ?? 'body';
    const field = path ? `${where === 'body' ? '' : `${where}.`}${path}` : where;
    return { status: 400, body: errorBody('invalid_params', `${field}: ${issue?.message ?? 'invalid'}`) };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code: ErrorCode = CODE_OF_STATUS[fe.statusCode] ?? 'invalid_params';
    return { status: fe.statusCode, body: errorBody(code, fe.message ?? 'bad request') };
  }
  return { status: 500, body: errorBody('internal', `internal error: ${err instanceof Error ? err.message : String(err)}`) };
}

/** Fastify error handler: logs server faults, answers everything in the one shape. */
export function httpErrorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status } = toHttpError(err);
  if (status >= 500 && !(err instanceof WriterUnavailableError)) req.log.error({ err }, 'request failed');
  else if (err instanceof WriterUnavailableError) req.log.warn({ err, instance: err.owner }, 'the instance that owns the session did not answer');
  return sendError(reply, err);
}
