import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BrowserSessions, cookieName, CSRF_HEADER, readCookie, sameSecret, type BrowserSession } from './browser-auth.js';
import { crossSiteRefusal, ownScheme, SAFE_METHODS } from './cross-site.js';
import { errorBody } from '../errors.js';

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Constant-time token check: both sides are hashed first so neither their length nor content leaks. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  const given = createHash('sha256').update(m?.[1]?.trim() ?? '').digest();
  const want = createHash('sha256').update(token).digest();
  return timingSafeEqual(given, want) && m !== null;
}

/** The Host headers a loopback-bound server answers to: a web page on another name (DNS rebinding) is refused. */
export function allowedHosts(boundHost: string, port: number): Set<string> {
  const names = ['localhost', '127.0.0.1', '[::1]'];
  const bound = isIP(boundHost) === 6 ? `[${boundHost}]` : boundHost;
  names.push(bound.toLowerCase());
  return new Set(names.map((n) => `${n}:${port}`));
}

export interface GuardOptions {
  token: string | undefined;
  /** undefined = any Host (non-loopback bind with a token). */
  hosts: () => Set<string> | undefined;
  /** The web console's logins (cookie auth); none = Bearer only. */
  browser?: BrowserSessions | undefined;
}

/** How a request proved who it is: the Bearer token, a console login cookie, or nothing needed. */
export type AuthVia = { via: 'bearer' } | { via: 'cookie'; session: BrowserSession; cookie: string } | { via: 'none' };

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the guard for every request it lets through. */
    ferretAuth?: AuthVia;
  }
}

/** The console login a request's cookie names, if it is live. */
export function cookieSession(req: FastifyRequest, browser: BrowserSessions | undefined): { session: BrowserSession; cookie: string } | undefined {
  const cookie = browser ? readCookie(req.headers, cookieName(req.headers.host)) : undefined;
  const session = cookie ? browser?.lookup(cookie) : undefined;
  return session && cookie ? { session, cookie } : undefined;
}

/**
 * The onRequest hook every request passes (public routes, the 404 answer, ACP over HTTP), in
 * order: the Host check; the cross-site check (cross-site.ts) on every request that does not
 * carry the right Bearer token; who the request is (`ferretAuth`: the Bearer token, a console
 * login cookie, or nothing), and a login cookie's CSRF token on a state-changing request.
 * Whether a route needs a proof at all is `requireAuth`'s, hooked where the guarded routes are.
 */
export function siteGuard(opts: GuardOptions) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const hosts = opts.hosts();
    const host = (req.headers.host ?? '').toLowerCase();
    if (hosts && !hosts.has(host)) {
      return forbidden(reply, `Host header "${host}" is not this server; use one of ${[...hosts].join(', ')}`);
    }
    // A browser never attaches a Bearer token by itself: a request with the right one is no forgery.
    const bearer = opts.token !== undefined && tokenMatches(req.headers.authorization, opts.token);
    if (!bearer) {
      const refusal = crossSiteRefusal({ method: req.method, headers: req.headers, scheme: ownScheme(req.raw, opts.token !== undefined) });
      if (refusal) return forbidden(reply, refusal);
    }
    const login = cookieSession(req, opts.browser);
    if (bearer) req.ferretAuth = { via: 'bearer' };
    else if (login) req.ferretAuth = { via: 'cookie', ...login };
    else req.ferretAuth = { via: 'none' };
    if (login && !bearer && !SAFE_METHODS.has(req.method)) {
      const sent = req.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameSecret(sent, login.session.csrf)) {
        return forbidden(reply, `missing or wrong ${CSRF_HEADER} header: a request made with the console's login cookie must carry its CSRF token`);
      }
    }
  };
}

/** The onRequest hook of the guarded routes: with a token set, a request must have proved itself (siteGuard). */
export function requireAuth(token: string | undefined) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (token === undefined || (req.ferretAuth !== undefined && req.ferretAuth.via !== 'none')) return;
    await reply
      .code(401)
      .header('www-authenticate', 'Bearer')
      .type('application/json')
      .send(errorBody('unauthorized', 'missing or wrong bearer token: send Authorization: Bearer $FERRET_SERVER_TOKEN'));
    return reply;
  };
}

async function forbidden(reply: FastifyReply, message: string): Promise<FastifyReply> {
  await reply.code(403).type('application/json').send(errorBody('forbidden', message));
  return reply;
}
