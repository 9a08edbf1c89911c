import type { IncomingHttpHeaders } from 'node:http';

// A browser is a hostile neighbour: any page the person visits can make it send requests to
// 127.0.0.1:PORT. Browsers say where a request comes from (`Sec-Fetch-Site`, `Origin`);
// non-browser clients (bots, the typed client, curl) send neither and are not affected.

/** Methods that change nothing: the only ones a cross-site page may ever get answered (navigations). */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface RequestFacts {
  method: string;
  headers: IncomingHttpHeaders;
  /** The scheme this server is reached by (siteGuard's `ownScheme`); `http` when not given. */
  scheme?: 'http' | 'https';
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)?.trim().toLowerCase();

/**
 * Why a request is refused as coming from another site, or undefined when it is not.
 * - `Sec-Fetch-Site: cross-site` or `same-site` (another port of localhost is the same site):
 *   refused, unless it is a top-level navigation (GET of a page: a link to the console).
 * - `Origin` present (every browser sends it on a POST, and on any cross-origin fetch) and not
 *   this server's own origin (its scheme must be the one the request came by, its authority the
 *   Host the browser sent to: a page on `https://127.0.0.1:PORT` is not `http://127.0.0.1:PORT`): refused.
 *   `Origin: null` (a sandboxed frame, a file:// page) is refused too.
 */
export function crossSiteRefusal(req: RequestFacts): string | undefined {
  const site = one(req.headers['sec-fetch-site']);
  const safe = SAFE_METHODS.has(req.method.toUpperCase());
  if (site === 'cross-site' || site === 'same-site') {
    const navigation = one(req.headers['sec-fetch-mode']) === 'navigate' && one(req.headers['sec-fetch-dest']) === 'document';
    if (!(safe && navigation)) return `a ${site} request (Sec-Fetch-Site: ${site}) is refused: only this server's own pages may call it`;
  }
  const origin = one(req.headers.origin);
  if (origin !== undefined && !isOwnOrigin(origin, one(req.headers.host) ?? '', req.scheme ?? 'http')) {
    return `a request from another origin (Origin: ${origin}) is refused: only this server's own pages may call it`;
  }
  return undefined;
}

/** True when `origin` names exactly the scheme (`http` or `https`) and the authority the request was sent to. */
export function isOwnOrigin(origin: string, host: string, scheme: 'http' | 'https'): boolean {
  if (origin === 'null' || host === '') return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== `${scheme}:`) return false;
  return url.host.toLowerCase() === normalHost(host, url.protocol);
}

/** The Host header as URL.host writes it (default port dropped), for comparison. */
function normalHost(host: string, protocol: string): string {
  const h = host.toLowerCase();
  if (protocol === 'http:' && h.endsWith(':80')) return h.slice(0, -3);
  if (protocol === 'https:' && h.endsWith(':443')) return h.slice(0, -4);
  return h;
}

/**
 * The scheme a request reached this server by: `https` on a TLS socket; behind a TLS-terminating
 * proxy (a server with a token, the only kind that may listen beyond loopback) what the proxy's
 * `X-Forwarded-Proto` says. A page cannot add that header to a cross-origin request (it is not
 * CORS-safelisted, and this server answers no preflight); a tokenless server ignores it anyway.
 */
export function ownScheme(req: { headers: IncomingHttpHeaders; socket?: unknown }, hasToken: boolean): 'http' | 'https' {
  if ((req.socket as { encrypted?: boolean } | undefined)?.encrypted === true) return 'https';
  const forwarded = hasToken ? one(req.headers['x-forwarded-proto'])?.split(',')[0]?.trim() : undefined;
  return forwarded === 'https' ? 'https' : 'http';
}
