// One web page fetched by the server: a deadline over the whole fetch, a cap on the bytes read
// (after decompression), redirects followed a bounded number of times with each hop's address
// checked again. A redirect to another host is not followed unless that host is allowed without
// asking: it is handed back, so the fetch of a new host is judged (and asked for) on its own.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { addressRefusal, domainAllowed, hostOf, type WebChoice } from '../../sandbox/index.js';
import { AddressRefused, checkedLookup } from './checked-lookup.js';

export const WEB_LIMITS = {
  /** The whole fetch, redirects included. */
  deadlineMs: 30_000,
  /** Bytes of a body read, after decompression; the rest is cut. */
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
} as const;

export type Fetched =
  | { kind: 'page'; url: string; status: number; statusText: string; contentType: string; body: Buffer; cut: boolean }
  | { kind: 'redirect'; url: string; status: number; location: string };

export interface FetchOptions {
  choice: WebChoice;
  signal: AbortSignal;
  /** Whether a response's content type is one worth reading (text); checked before the body is read. */
  wanted(contentType: string): boolean;
  limits?: { deadlineMs: number; maxBytes: number; maxRedirects: number };
}

export { AddressRefused };

/** Fetches `raw`, following redirects within the same host (or to hosts allowed without asking). */
export async function fetchPage(raw: string, opts: FetchOptions): Promise<Fetched | { kind: 'binary'; url: string; contentType: string; length: string | undefined }> {
  const limits = opts.limits ?? WEB_LIMITS;
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(limits.deadlineMs)]);
  let url = new URL(raw);
  for (let hop = 0; ; hop++) {
    const res = await get(url, opts.choice, signal, limits.deadlineMs);
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
      res.destroy();
      const next = new URL(location, url);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new AddressRefused(`${url.href} redirects to ${next.protocol} (only http and https are fetched)`);
      const sameHost = hostOf(next) === hostOf(url);
      if (!sameHost && !domainAllowed(hostOf(next), opts.choice)) return { kind: 'redirect', url: url.href, status: res.statusCode, location: next.href };
      if (hop >= limits.maxRedirects) throw new Error(`more than ${limits.maxRedirects} redirects (last to ${next.href})`);
      url = next;
      continue;
    }
    const contentType = String(res.headers['content-type'] ?? '');
    if (!opts.wanted(contentType)) {
      res.destroy();
      return { kind: 'binary', url: url.href, contentType, length: res.headers['content-length'] };
    }
    const { body, cut } = await readCapped(decoded(res), limits.maxBytes, signal, limits.deadlineMs);
    return { kind: 'page', url: url.href, status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', contentType, body, cut };
  }
}

/** One request. An address written in the URL is checked here (no DNS step); a name in checkedLookup. */
function get(url: URL, choice: WebChoice, signal: AbortSignal, deadlineMs: number): Promise<IncomingMessage> {
  const host = hostOf(url);
  if (isIP(host)) {
    const refusal = addressRefusal(host, host, choice);
    if (refusal) return Promise.reject(new AddressRefused(refusal));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      // No shared pool: each connection is made (and its address checked) for this fetch.
      agent: false,
      lookup: checkedLookup(host, choice),
      signal,
      headers: {
        'user-agent': 'ferret-web-fetch/1 (coding agent)',
        accept: 'text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.1',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    req.once('response', resolve);
    req.once('error', (err) => reject(signal.aborted && !(err instanceof AddressRefused) ? abortError(signal, deadlineMs) : err));
    req.end();
  });
}

function abortError(signal: AbortSignal, deadlineMs: number): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name === 'TimeoutError' ? new Error(`no complete answer within ${deadlineMs / 1000} s`) : new Error('cancelled');
}

/** The body as the server meant it: gzip, deflate and br undone (their output counts against the cap). */
function decoded(res: IncomingMessage): Readable {
  const enc = String(res.headers['content-encoding'] ?? '').trim().toLowerCase();
  const stage = enc === 'gzip' || enc === 'x-gzip' ? createGunzip() : enc === 'deflate' ? createInflate() : enc === 'br' ? createBrotliDecompress() : undefined;
  if (!stage) return res;
  res.on('error', (err) => stage.destroy(err));
  return res.pipe(stage);
}

async function readCapped(stream: Readable, max: number, signal: AbortSignal, deadlineMs: number): Promise<{ body: Buffer; cut: boolean }> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const b = chunk as Buffer;
      if (size + b.length >= max) {
        parts.push(b.subarray(0, max - size));
        stream.destroy();
        return { body: Buffer.concat(parts), cut: true };
      }
      parts.push(b);
      size += b.length;
    }
  } catch (err) {
    if (signal.aborted) throw abortError(signal, deadlineMs);
    throw err;
  }
  return { body: Buffer.concat(parts), cut: false };
}
