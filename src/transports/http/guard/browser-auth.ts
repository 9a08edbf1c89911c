import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

// Cookie auth for the web console: the token is exchanged once (POST /auth/login) for a random
// session id in an HttpOnly, SameSite=Strict cookie, so the token never sits in a URL, in
// localStorage or in a page's reach. Each browser session also has a CSRF token (synchronizer:
// kept here, handed to the page by GET /auth/session) that every state-changing request made
// with the cookie must carry in X-Ferret-CSRF.

export const CSRF_HEADER = 'x-ferret-csrf';
/** How long a login lasts (absolute): 12 hours. */
const TTL_MS = 12 * 60 * 60 * 1000;
/** Logins kept at once; the oldest is forgotten beyond it (memory stays bounded). */
const MAX_SESSIONS = 64;

export interface BrowserSession {
  csrf: string;
  expires: number;
}

const sha = (s: string) => createHash('sha256').update(s).digest();
/** Constant-time equality of two secrets (hashed first, so their lengths do not leak either). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(sha(a), sha(b)) && a.length > 0;
}

/** The cookie's name: per port, because browsers share one cookie jar across the ports of a host. */
export function cookieName(hostHeader: string | undefined): string {
  const port = /:(\d{1,5})$/.exec(hostHeader ?? '')?.[1];
  return `ferret_session_${port ?? 'default'}`;
}

/** One cookie's value from a Cookie header (undefined when absent). */
export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The logins of one server process (in memory: a restart logs every browser out). */
export class BrowserSessions {
  private readonly sessions = new Map<string, BrowserSession>();

  constructor(
    private readonly ttlMs = TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new login: its cookie value and CSRF token. */
  create(): { id: string; session: BrowserSession } {
    this.sweep();
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const id = randomBytes(32).toString('base64url');
    const session = { csrf: randomBytes(32).toString('base64url'), expires: this.now() + this.ttlMs };
    this.sessions.set(id, session);
    return { id, session };
  }

  /** The live login a cookie names (constant-time per entry; the map is small). */
  lookup(id: string | undefined): BrowserSession | undefined {
    if (!id) return undefined;
    for (const [key, s] of this.sessions) {
      if (!sameSecret(key, id)) continue;
      if (s.expires > this.now()) return s;
      this.sessions.delete(key);
      return undefined;
    }
    return undefined;
  }

  revoke(id: string | undefined): void {
    if (!id) return;
    for (const key of this.sessions.keys()) if (sameSecret(key, id)) this.sessions.delete(key);
  }

  get maxAgeSeconds(): number {
    return Math.floor(this.ttlMs / 1000);
  }

  private sweep(): void {
    const t = this.now();
    for (const [key, s] of this.sessions) if (s.expires <= t) this.sessions.delete(key);
  }
}

/** The Set-Cookie value of a login (or, with maxAge 0, of its removal). */
export function sessionCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}
