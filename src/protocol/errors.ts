// One error class with a closed set of codes; each transport maps a code to its wire status in one table.
export const ERROR_CODES = [
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

export type ErrorCode = (typeof ERROR_CODES)[number];

export class FerretError extends Error {
  override readonly name = 'FerretError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * The fleet server that writes a session does not answer (gone, wedged): `session_busy` naming
 * it, as any other; a transport may tell the caller to retry (another server takes the session
 * over once its lease runs out).
 */
export class WriterUnavailableError extends FerretError {
  constructor(
    message: string,
    readonly owner: string,
  ) {
    super('session_busy', message, { owner });
  }
}

export function isFerretError(e: unknown): e is FerretError {
  return e instanceof FerretError;
}

/** Human text of any thrown value, for notices and tool results the model reads. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
