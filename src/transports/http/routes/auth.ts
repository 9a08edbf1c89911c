import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';
import { cookieName, sameSecret, sessionCookie, type BrowserSessions } from '../guard/browser-auth.js';
import type { ZodApp } from '../context.js';
import { AuthState, errors, LoginBody, Ok } from '../schemas.js';

/** How long a wrong token waits before its 401: guessing online stays slow. */
const WRONG_TOKEN_DELAY_MS = 250;

export interface AuthRouteOptions {
  token: string | undefined;
  browser: BrowserSessions;
}

const secure = (req: FastifyRequest) => req.protocol === 'https';

/**
 * The web console's login (public: these need no token): the token goes once in a POST body and comes back as an HttpOnly,
 * SameSite=Strict cookie plus a CSRF token for the page (docs/security.md, "The web console").
 */
export function loginRoutes(app: ZodApp, opts: AuthRouteOptions): void {
  app.get('/auth/session', {
    schema: {
      operationId: 'authState',
      tags: ['auth'],
      summary: "Whether this browser may use the API, and its login's CSRF token (no token needed)",
      security: [],
      response: { 200: AuthState, ...errors(403, 500) },
    },
  }, async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    const auth = req.ferretAuth;
    return {
      tokenRequired: opts.token !== undefined,
      authenticated: opts.token === undefined || (auth !== undefined && auth.via !== 'none'),
      ...(auth?.via === 'cookie' ? { csrfToken: auth.session.csrf } : {}),
    };
  });

  app.post('/auth/login', {
    schema: {
      operationId: 'login',
      tags: ['auth'],
      summary: 'Exchange the token for a login cookie (HttpOnly, SameSite=Strict) and a CSRF token',
      security: [],
      body: LoginBody,
      response: { 200: AuthState, ...errors(400, 401, 403, 413, 415, 500) },
    },
  }, async (req, reply) => {
    void reply.header('cache-control', 'no-store');
    if (opts.token === undefined) return { tokenRequired: false, authenticated: true };
    if (!sameSecret(req.body.token, opts.token)) {
      await sleep(WRONG_TOKEN_DELAY_MS);
      throw new HttpError('unauthorized', 'wrong token');
    }
    if (req.ferretAuth?.via === 'cookie') opts.browser.revoke(req.ferretAuth.cookie);
    const { id, session } = opts.browser.create();
    void reply.header('set-cookie', sessionCookie(cookieName(req.headers.host), id, opts.browser.maxAgeSeconds, secure(req)));
    return { tokenRequired: true, authenticated: true, csrfToken: session.csrf };
  });

}

/** Ending a login needs one (or the token): it is a guarded route. */
export function authRoutes(app: ZodApp, opts: AuthRouteOptions): void {
  app.post('/auth/logout', {
    schema: {
      operationId: 'logout',
      tags: ['auth'],
      summary: "End this browser's login (its cookie and CSRF token stop working)",
      response: { 200: Ok, ...errors(401, 403, 500) },
    },
  }, async (req, reply) => {
    if (req.ferretAuth?.via === 'cookie') opts.browser.revoke(req.ferretAuth.cookie);
    void reply.header('set-cookie', sessionCookie(cookieName(req.headers.host), '', 0, secure(req)));
    return { ok: true as const };
  });
}
