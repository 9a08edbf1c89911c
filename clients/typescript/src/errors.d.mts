import type { components } from './schema.js';

/** Every error code the server sends (`error.code`), from the document's ErrorCode enum. */
export type ErrorCode = components['schemas']['ErrorCode'];
/** ferret's one error body. */
export type ErrorBody = components['schemas']['Error'];

/** A non-2xx answer: `status`, and `code` from the ErrorCode enum (the body's, or the one its status stands for). */
export declare class FerretHttpError extends Error {
  constructor(status: number, code: ErrorCode, message: string, where?: { method?: string; path?: string; body?: unknown });
  readonly name: 'FerretHttpError';
  readonly status: number;
  readonly code: ErrorCode;
  /** The server's `error.message` (the Error's own message adds method, path, status and code). */
  readonly serverMessage: string;
  readonly method: string | undefined;
  readonly path: string | undefined;
  /** The parsed body (or its text when it was not JSON). */
  readonly body: unknown;
  /** From a parsed body (or its text): ferret's code and message when the body has them. */
  static fromBody(status: number, body: unknown, method?: string, path?: string): FerretHttpError;
}

/** True when `e` is a FerretHttpError (with this code, when given). */
export declare function isFerretError(e: unknown, code?: ErrorCode): e is FerretHttpError;
