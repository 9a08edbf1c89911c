import type { HttpContext, ZodApp } from '../context.js';
import { describeSession } from '../context.js';
import {
  errors,
  guardErrors,
  ListQuery,
  MESSAGE_BODY_LIMIT,
  MessageBody,
  MessageHeaders,
  MessageQuery,
  NewSessionBody,
  Ok,
  PromptList,
  PromptsQuery,
  RenameBody,
  RenameResult,
  SessionDescription,
  SessionDetail,
  SessionList,
  SessionParams,
  TurnAccepted,
  TurnResult,
  sessionErrors,
} from '../schemas.js';

/**
 * Session lifecycle routes: create, list, inspect, send a message, cancel. One request → one core
 * call; a command goes through `manager.command`, which a fleet carries to the session's writer.
 */
export function sessionRoutes(app: ZodApp, ctx: HttpContext): void {
  const m = ctx.manager;

  app.post('/session', {
    schema: {
      operationId: 'createSession',
      tags: ['sessions'],
      summary: 'Create a session (every field optional; no body at all is fine)',
      body: NewSessionBody.nullish(),
      response: { 201: SessionDescription, ...errors(400, 401, 403, 413, 415, 422, 500) },
    },
  }, async (req, reply) => {
    const s = m.create(req.body ?? {});
    await s.stored(); // in a fleet, another server may be asked about it next
    return reply.code(201).send(describeSession(s));
  });

  app.post('/session/:id/fork', {
    schema: {
      operationId: 'forkSession',
      tags: ['sessions'],
      summary: "A new session with this one's history (its whole turns), model and settings; the source is unchanged",
      params: SessionParams,
      response: { 201: SessionDescription, ...sessionErrors, ...errors(503) },
    },
  }, async (req, reply) => {
    const s = await m.fork(req.params.id);
    await s.stored();
    return reply.code(201).send(describeSession(s));
  });

  app.get('/session', {
    schema: { operationId: 'listSessions', tags: ['sessions'], summary: 'List sessions (live and on disk), newest first, a page at a time', querystring: ListQuery, response: { 200: SessionList, ...guardErrors, ...errors(400) } },
  }, async (req) => {
    const page = await m.list({ cursor: req.query.cursor, limit: req.query.limit });
    // peek: listing a session is not using it (it does not keep an idle session in memory).
    return { ...page, sessions: page.sessions.map((s) => (s.live ? { ...s, approval: m.peek(s.sessionId)?.state.approval } : s)) };
  });

  app.delete('/session/:id', {
    schema: {
      operationId: 'deleteSession',
      tags: ['sessions'],
      summary: 'Delete a session for good: its log and its list entry (409 session_busy while it runs a turn)',
      params: SessionParams,
      response: { 200: Ok, ...sessionErrors, ...errors(409, 503) },
    },
  }, async (req) => {
    await m.delete(req.params.id);
    return { ok: true as const };
  });

  app.patch('/session/:id', {
    schema: {
      operationId: 'renameSession',
      tags: ['sessions'],
      summary: "Rename a session: its title in every list; clients following it get session_info",
      params: SessionParams,
      body: RenameBody,
      response: { 200: RenameResult, ...sessionErrors, ...errors(400, 413, 415, 422, 503) },
    },
  }, async (req) => ({ title: await m.command(req.params.id, { op: 'rename', title: req.body.title }) }));

  app.post('/session/:id/close', {
    schema: {
      operationId: 'closeSession',
      tags: ['sessions'],
      summary: 'Done with a session: it leaves memory now unless a turn runs or another client uses it (it stays listed and loads again on demand)',
      params: SessionParams,
      response: { 200: Ok, ...sessionErrors },
    },
  }, async (req) => {
    await m.command(req.params.id, { op: 'close' });
    return { ok: true as const };
  });

  app.get('/session/:id', {
    schema: { operationId: 'getSession', tags: ['sessions'], summary: "A session's state, status and cost so far", params: SessionParams, response: { 200: SessionDetail, ...sessionErrors } },
  }, async (req) => {
    const s = m.get(req.params.id);
    const st = s.state;
    return {
      ...describeSession(s),
      ...(st.title !== undefined ? { title: st.title } : {}),
      ...(st.additionalDirectories?.length ? { additionalDirectories: st.additionalDirectories } : {}),
      status: s.status,
      usage: { ...st.usage },
      costUsd: st.costUsd,
      turns: st.turns,
      lastSeq: s.lastSeq,
      createdAt: new Date(st.createdAt).toISOString(),
      updatedAt: new Date(st.updatedAt).toISOString(),
    };
  });

  app.get('/session/:id/prompts', {
    schema: {
      operationId: 'listPrompts',
      tags: ['sessions'],
      summary: "What the user said at each turn's start (the event stream carries the turns' output, not their prompts)",
      params: SessionParams,
      querystring: PromptsQuery,
      response: { 200: PromptList, ...sessionErrors },
    },
  }, async (req) => {
    const prompts: { seq: number; turnId: string; text: string; origin?: string }[] = [];
    // subscribe(…, after) hands over the events after `after`: from memory at once, or read from the log in chunks (caughtUp).
    const sub = m.get(req.params.id).subscribe((e) => {
      if (e.type === 'turn_start' && e.seq > req.query.after) prompts.push({ seq: e.seq, turnId: e.data.turnId, text: e.data.text, ...(e.data.origin !== undefined ? { origin: e.data.origin } : {}) });
    }, req.query.after);
    await sub.caughtUp;
    sub();
    return { prompts };
  });

  app.post('/session/:id/message', {
    bodyLimit: MESSAGE_BODY_LIMIT,
    schema: {
      operationId: 'sendMessage',
      tags: ['turns'],
      summary: 'Send a user message (or a slash command); answers when the turn ends (or at once with ?wait=false)',
      params: SessionParams,
      querystring: MessageQuery,
      headers: MessageHeaders,
      body: MessageBody,
      response: { 200: TurnResult, 202: TurnAccepted, ...errors(400, 401, 403, 404, 409, 413, 415, 500) },
    },
  }, async (req, reply) => {
    const id = m.get(req.params.id).id;
    const { text, images, mentions } = req.body;
    const extras = { ...(images?.length ? { images } : {}), ...(mentions?.length ? { mentions } : {}) };
    const client = req.headers['x-ferret-client'];
    const origin = client ? `http:${client}` : 'http';
    // Run here, or on the fleet server that writes the session (the same answer either way).
    if (!req.query.wait) return reply.code(202).send(await m.command(id, { op: 'beginTurn', text, origin, ...extras }));
    return reply.code(200).send(await m.command(id, { op: 'startTurn', text, origin, ...extras }));
  });

  app.post('/session/:id/cancel', {
    schema: { operationId: 'cancelTurn', tags: ['turns'], summary: 'Cancel the running turn (a no-op when none runs)', params: SessionParams, response: { 200: Ok, ...sessionErrors } },
  }, async (req) => {
    await m.command(m.get(req.params.id).id, { op: 'cancel' });
    return { ok: true as const };
  });
}
