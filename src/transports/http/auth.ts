import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './errors.js';

/** Routes anyone on the machine may call without the token. */
const PUBLIC_ROUTES = new Set(['/health']);

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
}

/** One onRequest hook: Host check on every route, then Bearer auth on all but the public ones. */
export function requestGuard(opts: GuardOptions) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const hosts = opts.hosts();
    const host = (req.headers.host ?? '').toLowerCase();
    if (hosts && !hosts.has(host)) {
      await reply.code(403).type('application/json').send(errorBody('forbidden', `Host header "${host}" is not this server; use one of ${[...hosts].join(', ')}`));
      return reply;
    }
    const path = req.url.split('?')[0] ?? '';
    if (opts.token === undefined || PUBLIC_ROUTES.has(path)) return;
    if (!tokenMatches(req.headers.authorization, opts.token)) {
      await reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .type('application/json')
        .send(errorBody('unauthorized', 'missing or wrong bearer token: send Authorization: Bearer $FERRET_SERVER_TOKEN'));
      return reply;
    }
  };
}
