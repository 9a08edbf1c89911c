// ferret's one error shape, {"error":{"code","message"}}, as a thrown FerretHttpError. Types in errors.d.mts.

/** The code a status stands for when a body is not in ferret's shape (a proxy's page, an empty body). */
const CODE_OF_STATUS = {
  400: 'invalid_params',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  406: 'not_acceptable',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'model_unavailable',
};

/** A non-2xx answer: `status`, and `code` from the document's ErrorCode enum. */
export class FerretHttpError extends Error {
  constructor(status, code, message, { method, path, body } = {}) {
    super(`${method ?? ''} ${path ?? ''}: HTTP ${status} ${code}: ${message}`.trim());
    this.name = 'FerretHttpError';
    this.status = status;
    this.code = code;
    this.serverMessage = message;
    this.method = method;
    this.path = path;
    this.body = body;
  }

  /** From a parsed body (or its text): ferret's code and message when the body has them. */
  static fromBody(status, body, method, path) {
    let parsed = body;
    if (typeof body === 'string') {
      try {
        parsed = body ? JSON.parse(body) : undefined;
      } catch {
        parsed = body;
      }
    }
    const e = parsed && typeof parsed === 'object' ? parsed.error : undefined;
    const code = e && typeof e.code === 'string' ? e.code : (CODE_OF_STATUS[status] ?? 'internal');
    const message = e && typeof e.message === 'string' ? e.message : typeof parsed === 'string' && parsed ? parsed.slice(0, 200) : `HTTP ${status}`;
    return new FerretHttpError(status, code, message, { method, path, body: parsed });
  }
}

/** True when `e` is a FerretHttpError (with this code, when given). */
export function isFerretError(e, code) {
  return e instanceof FerretHttpError && (code === undefined || e.code === code);
}
