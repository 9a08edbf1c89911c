import type { HttpContext, ZodApp } from './context.js';
import { describeSession } from './context.js';
import {
  ErrorBody,
  MessageBody,
  MessageQuery,
  NewSessionBody,
  Ok,
  SessionDescription,
  SessionDetail,
  SessionList,
  SessionParams,
  TurnAccepted,
  TurnResult,
  sessionErrors,
} from './schemas.js';

/** Session lifecycle routes: create, list, inspect, send a message, cancel. One request → one core call. */
export function sessionRoutes(app: ZodApp, ctx: HttpContext): void {
  const m = ctx.manager;

  app.post('/session', {
    schema: { summary: 'Create a session', body: NewSessionBody.nullish(), response: { 201: SessionDescription, 400: ErrorBody, 401: ErrorBody } },
  }, async (req, reply) => {
    const s = m.create(req.body ?? {});
    return reply.code(201).send(describeSession(s));
  });

  app.get('/session', { schema: { summary: 'List sessions (live and on disk)', response: { 200: SessionList, 401: ErrorBody } } }, async () => ({
    sessions: m.list(),
  }));

  app.get('/session/:id', {
    schema: { summary: "A session's state, status and cost so far", params: SessionParams, response: { 200: SessionDetail, ...sessionErrors } },
  }, async (req) => {
    const s = m.get(req.params.id);
    const st = s.state;
    return {
      ...describeSession(s),
      ...(st.title !== undefined ? { title: st.title } : {}),
      status: s.status,
      usage: { ...st.usage },
      costUsd: st.costUsd,
      turns: st.turns,
      lastSeq: s.lastSeq,
      createdAt: new Date(st.createdAt).toISOString(),
      updatedAt: new Date(st.updatedAt).toISOString(),
    };
  });

  app.post('/session/:id/message', {
    schema: {
      summary: 'Send a user message; answers when the turn ends (or at once with ?wait=false)',
      params: SessionParams,
      querystring: MessageQuery,
      body: MessageBody,
      response: { 200: TurnResult, 202: TurnAccepted, 409: ErrorBody, ...sessionErrors },
    },
  }, async (req, reply) => {
    const s = m.get(req.params.id);
    const { turnId, done } = s.startTurn(req.body.text, 'http');
    if (!req.query.wait) {
      done.catch((err: unknown) => req.log.error({ err, sessionId: s.id, turnId }, 'turn failed'));
      return reply.code(202).send({ turnId });
    }
    return reply.code(200).send(await done);
  });

  app.post('/session/:id/cancel', {
    schema: { summary: 'Cancel the running turn', params: SessionParams, response: { 200: Ok, ...sessionErrors } },
  }, async (req) => {
    m.get(req.params.id).cancel();
    return { ok: true as const };
  });
}
