// JSON calls to the server this page came from. The login cookie goes along by itself
// (same origin); every state-changing call carries the login's CSRF token in X-Ferret-CSRF.
import { FerretHttpError } from '../../clients/typescript/src/errors.mjs';

export { FerretHttpError };

let csrfToken: string | undefined;
let onUnauthorized: () => void = () => {};

/** Set by the login flow: the token of this browser's login (kept in memory only). */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** What to do when a call answers 401 (the login expired or was ended elsewhere). */
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

export async function api<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-ferret-csrf'] = csrfToken;
  // A shared session's readers see this console's prompts as the console's, not a bot's.
  if (method === 'POST' && /\/message(\?|$)/.test(path)) headers['x-ferret-client'] = 'console';
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-store',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/auth/')) onUnauthorized();
    throw FerretHttpError.fromBody(res.status, text, method, path);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

/** One sentence for a failed call. */
export function errorText(e: unknown): string {
  if (e instanceof FerretHttpError) return e.serverMessage;
  return e instanceof Error ? e.message : String(e);
}
