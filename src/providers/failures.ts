import { APICallError, InvalidResponseDataError } from 'ai';
import { isOverflowText } from './overflow.js';
import { plainErrorText, streamErrorAsCall } from './stream-errors.js';

/** Our idle timer fired: the provider sent nothing for too long. */
export class IdleTimeoutError extends Error {
  override readonly name = 'IdleTimeoutError';
  constructor(readonly ms: number) {
    super(`no data for ${Math.round(ms / 1000)} s`);
  }
}

/** The stream ended without the provider saying why (no finish reason, no message_stop). */
export class StreamCutError extends Error {
  override readonly name = 'StreamCutError';
}

/** One failed attempt, judged: what to tell the person, and whether another attempt is safe. */
export interface Failure {
  /** short label for retry notices, e.g. "HTTP 429 (rate limited)" */
  label: string;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  /** The provider refused the prompt as longer than the model's context window (compact, then retry). */
  overflow?: boolean;
}


export interface FailureContext {
  modelId: string;
  baseURL: string;
  /** where the API key comes from, for 401 advice, e.g. "ANTHROPIC_API_KEY" */
  keyHint?: string | undefined;
}

function providerMessage(err: APICallError): string {
  try {
    const body = JSON.parse(err.responseBody ?? '') as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof m === 'string' && m) return m;
  } catch {
    // not JSON: fall back to the SDK's message
  }
  return err.message;
}

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const get = (k: string) => Object.entries(headers).find(([h]) => h.toLowerCase() === k)?.[1];
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = get('retry-after');
  if (ra === undefined) return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

function causeText(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${e.message} (${code})` : e.message);
  }
  return [...new Set(parts)].join(': ') || plainErrorText(err);
}

/** Every way a model call can fail, mapped to a clear sentence and a retry verdict. */
export function classifyFailure(err: unknown, ctx: FailureContext): Failure {
  const who = ctx.modelId;
  err = streamErrorAsCall(err, ctx.baseURL) ?? err;
  if (err instanceof IdleTimeoutError) {
    return { label: 'timeout', retryable: true, message: `${who}: the provider sent no data for ${Math.round(err.ms / 1000)} s (timed out)` };
  }
  if (err instanceof StreamCutError || InvalidResponseDataError.isInstance(err)) {
    return { label: 'stream cut', retryable: true, message: `${who}: the response stream was cut off mid-way (${err.message})` };
  }
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const detail = providerMessage(err);
    if (status === undefined) {
      return { label: 'connection failed', retryable: true, message: `${who}: cannot reach ${ctx.baseURL}: ${causeText(err)}` };
    }
    if (status >= 200 && status < 300) {
      // The request was accepted and its body broke on the way (a socket cut mid-stream).
      return { label: 'stream cut', retryable: true, message: `${who}: the response stream was cut off mid-way (${causeText(err)})` };
    }
    if (status === 401 || status === 403) {
      const hint = ctx.keyHint ? ` Check ${ctx.keyHint}.` : '';
      return { label: `HTTP ${status}`, retryable: false, message: `${who}: authentication failed (HTTP ${status}): ${detail}.${hint}` };
    }
    if (status === 429) {
      const after = retryAfterMs(err.responseHeaders);
      return { label: 'HTTP 429 (rate limited)', retryable: true, message: `${who}: rate limited (HTTP 429): ${detail}`, ...(after !== undefined ? { retryAfterMs: after } : {}) };
    }
    if (status === 408 || status === 409 || status >= 500) {
      const after = retryAfterMs(err.responseHeaders);
      return { label: `HTTP ${status}`, retryable: true, message: `${who}: provider error (HTTP ${status}): ${detail}`, ...(after !== undefined ? { retryAfterMs: after } : {}) };
    }
    const overflow = (status === 400 || status === 413 || status === 422) && isOverflowText(`${detail} ${err.responseBody ?? ''}`);
    return { label: `HTTP ${status}`, retryable: false, message: `${who}: request rejected (HTTP ${status}): ${detail}`, ...(overflow ? { overflow } : {}) };
  }
  if (err instanceof Error && (err.name === 'TypeError' || err.name === 'AbortError' || /terminated|socket|ECONN|EPIPE|fetch failed/i.test(causeText(err)))) {
    return { label: 'connection lost', retryable: true, message: `${who}: the connection to ${ctx.baseURL} failed: ${causeText(err)}` };
  }
  // A stream that failed mid-way with the provider's own error object (OpenAI's response.failed).
  const text = causeText(err);
  return { label: 'error', retryable: false, message: `${who}: ${text}`, ...(isOverflowText(`${text} ${safeJson(err)}`) ? { overflow: true } : {}) };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}
