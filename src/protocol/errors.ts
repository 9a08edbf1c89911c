// One error class with a closed set of codes, each naming one meaning. What a code means to a
// caller (may the same request succeed later?) is in the table below; how a code reads on the wire
// (an HTTP status, a JSON-RPC code, the `code` string) is each transport's own table.

/**
 * Every core error code and whether it is retryable: the same request, unchanged, may succeed
 * later (a turn ends, a load finishes, the store comes back). The order is the codes' order in
 * schemas (`ERROR_CODES`).
 */
export const ERRORS = {
  /** The caller's input is wrong; the message names the field. */
  invalid_params: { retryable: false },
  session_not_found: { retryable: false },
  /** A turn is running in the session (`data.turnId`): wait for it to end or cancel it. */
  session_busy: { retryable: true },
  /** The session is being loaded into memory: ask again in a moment. */
  session_loading: { retryable: true },
  /** Another process (a lock) or another fleet server (`data.owner`, a lease) writes the session. */
  session_elsewhere: { retryable: false },
  /** The fleet server that writes the session (`data.owner`) does not answer; another takes it over once its lease runs out. */
  writer_unreachable: { retryable: true },
  permission_not_found: { retryable: false },
  already_decided: { retryable: false },
  /** An unknown model id or a malformed scripted file. */
  model_unavailable: { retryable: false },
  /** The model's provider has no key; the message names the variable to set. */
  auth_required: { retryable: false },
  /** A fleet server has no directory at the session's workspace path (`data.workspace`). */
  workspace_not_found: { retryable: false },
  /** The store failed for good: a log that cannot be created or read, events it refused. */
  storage: { retryable: false },
  /** The store cannot be reached now (Redis away, the store closing): it comes back by itself. */
  storage_unavailable: { retryable: true },
  internal: { retryable: false },
} as const satisfies Record<string, { retryable: boolean }>;

export type ErrorCode = keyof typeof ERRORS;

export const ERROR_CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERRORS, code);
}

/** The data some codes always carry, typed; every other code carries free-form details (a field name, a store URL). */
interface KnownData {
  session_elsewhere: { owner?: string; pid?: number };
  writer_unreachable: { owner?: string };
}

export type ErrorData<C extends ErrorCode> = [C] extends [keyof KnownData] ? KnownData[C] : Record<string, unknown>;

export class FerretError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'FerretError';
  constructor(
    readonly code: C,
    message: string,
    readonly data?: ErrorData<C>,
  ) {
    super(message);
  }

  /** Whether the same request may succeed later: from the code, never set by a throw site. */
  get retryable(): boolean {
    return ERRORS[this.code].retryable;
  }
}

export function isFerretError(e: unknown): e is FerretError;
/** A FerretError of this code, its data typed: `isFerretError(err, 'session_elsewhere') && err.data?.owner`. */
export function isFerretError<C extends ErrorCode>(e: unknown, code: C): e is FerretError<C>;
export function isFerretError(e: unknown, code?: ErrorCode): boolean {
  return e instanceof FerretError && (code === undefined || e.code === code);
}

/** Human text of any thrown value, for notices and tool results the model reads. */
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
