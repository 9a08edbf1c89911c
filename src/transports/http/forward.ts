import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { FerretError } from '../../core/index.js';
import { sendError } from './errors.js';

/** Marks a request one instance passed to another: the receiver answers it itself, never passes it on. */
export const FORWARDED_HEADER = 'x-ferret-forwarded-by';
/** Request headers that mean something to the owner; the rest (Host, Connection, …) are this hop's. */
const PASS = ['authorization', 'content-type', 'accept', 'cookie', 'x-ferret-csrf', 'last-event-id', 'idempotency-key'];
/** Answer headers worth handing back (content-length is the sender's to set). */
const BACK = ['content-type', 'retry-after', 'location', 'www-authenticate'];
/** How long the owner may take to accept the connection. */
const CONNECT_TIMEOUT_MS = 5000;
/** How long it may take to answer a command (a message's answer comes at its turn's end, however long: no bound). */
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * Sends a command for a session another instance writes to that instance, and answers with its
 * answer, status and body as they are: a client behind a round-robin load balancer cannot tell
 * which instance it reached. A message's answer comes when its turn ends, however long that is;
 * a client that goes away takes the forwarded request with it. An owner that does not answer
 * gets `writer_unreachable` (503 `session_busy` on the wire) that says so (its sessions are taken
 * over once its lease runs out).
 */
export async function forwardRequest(req: FastifyRequest, reply: FastifyReply, target: { instance: string; url: string | undefined }, self: string): Promise<FastifyReply> {
  if (target.url === undefined) return ownerGone(reply, target.instance);
  const headers: Record<string, string> = { [FORWARDED_HEADER]: self };
  for (const h of PASS) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  let body: Buffer | undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD' && req.body !== undefined) {
    body = Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(body.length);
  }
  let res: { status: number; headers: IncomingMessage['headers']; body: Buffer };
  try {
    const turn = req.method === 'POST' && /\/message$/.test(req.url.split('?')[0]!);
    res = await send(new URL(req.url, target.url), req.method, headers, body, reply.raw, turn ? undefined : ANSWER_TIMEOUT_MS);
  } catch (err) {
    req.log.warn({ err, instance: target.instance, url: target.url }, 'the instance that owns the session did not answer');
    return ownerGone(reply, target.instance);
  }
  reply.code(res.status);
  for (const h of BACK) {
    const v = res.headers[h];
    if (typeof v === 'string') reply.header(h, v);
  }
  return reply.send(res.body);
}

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  client: ServerResponse,
  answerMs: number | undefined,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const r = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    const connecting = setTimeout(() => r.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    r.on('socket', (s) => (s.connecting ? s.once('connect', () => clearTimeout(connecting)) : clearTimeout(connecting)));
    // A wedged owner (stopped, partitioned) accepts connections and never answers: bounded, but a turn is not.
    const answering = answerMs === undefined ? undefined : setTimeout(() => r.destroy(new Error(`no answer within ${answerMs} ms`)), answerMs);
    r.on('error', (err) => {
      clearTimeout(connecting);
      reject(err);
    });
    r.on('close', () => clearTimeout(answering));
    // The client gave up: so does the forwarded request (the owner sees its client go, as it would have).
    const gone = () => {
      if (!client.writableFinished) r.destroy(new Error('the client went away'));
    };
    client.once('close', gone);
    r.once('close', () => client.off('close', gone));
    r.end(body);
  });
}

function ownerGone(reply: FastifyReply, instance: string): FastifyReply {
  const err = new FerretError('writer_unreachable', `the ferret instance that runs this session (${instance}) does not answer; another takes it over once its lease runs out: try again shortly`, { owner: instance });
  return sendError(reply.header('retry-after', '1'), err);
}
