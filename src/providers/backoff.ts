// How long ferret waits before another attempt at a model call: the provider's own figure when it
// gives one (retry-after), else exponential backoff with jitter so many sessions rate limited at
// once do not come back in step.

/** Patient retries, before and during a reply (a cut stream is retried too). */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The first backoff; each next one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** The longest single wait ferret accepts: a retry-after above it fails the call at once. */
  maxWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 2000, maxDelayMs: 30_000, maxWaitMs: 60_000 };

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1): retry-after when the provider
 * said it, else a random point in the upper half of the doubled backoff, capped at maxDelayMs.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/** "20 s", "1.5 s", "250 ms": how a notice says a wait. */
export function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`;
}
