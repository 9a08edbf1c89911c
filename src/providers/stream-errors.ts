import { APICallError } from 'ai';

// A failure after a reply has started streaming comes as an event inside the stream, not as an
// HTTP status. Anthropic sends `event: error` with `{type: 'overloaded_error', message: 'Overloaded'}`
// (its docs: what would be a 529 before the stream started), and the AI SDK hands that object on
// as it is. Read here as the HTTP failure it stands for, it gets the same sentence and the same
// retry verdict as that failure; left alone it read "[object Object]" and was never retried.

/** Anthropic's error types and the HTTP status each stands for. */
const ANTHROPIC_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** A provider's error object from inside a stream, as an APICallError with its status; else undefined. */
export function streamErrorAsCall(err: unknown, url: string): APICallError | undefined {
  if (err === null || typeof err !== 'object' || err instanceof Error) return undefined;
  const o = err as { type?: unknown; message?: unknown };
  const statusCode = typeof o.type === 'string' ? ANTHROPIC_STATUS[o.type] : undefined;
  if (statusCode === undefined) return undefined;
  const message = typeof o.message === 'string' && o.message ? o.message : String(o.type);
  return new APICallError({
    message,
    url,
    requestBodyValues: {},
    statusCode,
    responseBody: JSON.stringify({ type: 'error', error: err }),
    isRetryable: statusCode === 429 || statusCode >= 500,
  });
}

/** What a thrown value that is not an Error says: its `message` when it has one, else its JSON. */
export function plainErrorText(err: unknown): string {
  if (err !== null && typeof err === 'object' && !(err instanceof Error)) {
    const m = (err as { message?: unknown }).message;
    if (typeof m === 'string' && m) return m;
    try {
      return JSON.stringify(err);
    } catch {
      // a cycle: fall through
    }
  }
  return String(err);
}
