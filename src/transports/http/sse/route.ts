import { z } from 'zod';
import { FerretError } from '../../../core/index.js';
import { HttpError } from '../errors.js';
import type { HttpContext, ZodApp } from '../context.js';
import { parseFrameId } from './frames.js';
import { acceptsEventStream } from './accepts-sse.js';
import { SseFrameSchema } from './frame-schemas.js';
import { errors, SessionParams } from '../schemas.js';
import type { FrameHubs } from './frame-hub.js';
import { ideFold } from './ide-frames.js';
import { SseSubscriber } from './sse-subscriber.js';
import { SseStream } from '../../sse/sse-stream.js';

const EventsHeaders = z.object({ 'last-event-id': z.string().optional() }).loose();

/**
 * GET /session/:id/events. The one SSE writer (transports/sse) opens the stream and sends the
 * heartbeat; frames are written by SseSubscriber straight to the socket, with its own pacing and
 * backlog rules (an awaitable send per frame would park one listener per frame on a reader that
 * does not drain).
 */
export function eventRoutes(app: ZodApp, ctx: HttpContext, subscribers: Set<SseSubscriber>, hubs: FrameHubs): void {
  // The hubs start at any seq from the IDE translator's state, which the core keeps in the log (the CLI registers it at start).
  ctx.manager.useFold(ideFold);
  app.get('/session/:id/events', {
    schema: {
      operationId: 'streamEvents',
      tags: ['events'],
      summary: 'Server-Sent Events: loop_event, result, and the IDE frames; resume with Last-Event-ID',
      description:
        'Each frame is `id:` (SEQ or SEQ.K), `event:` (one of the SseFrame event names) and one JSON `data:` line ' +
        '(the SseFrame schema for that event). Comment lines are heartbeats. Send the last id back as Last-Event-ID ' +
        'to resume exactly after it.',
      params: SessionParams,
      headers: EventsHeaders,
      response: {
        200: { description: 'The event stream (SseFrame, one per event)', content: { 'text/event-stream': { schema: SseFrameSchema } } },
        ...errors(400, 401, 403, 404, 406, 500),
      },
    },
    // A client that cannot read the stream is told so before anything is opened.
    onRequest: async (req) => {
      if (!acceptsEventStream(req.headers.accept)) {
        throw new HttpError('not_acceptable', `Accept: "${req.headers.accept ?? ''}" does not allow text/event-stream, the only thing this route sends`);
      }
    },
  }, async (req, reply) => {
    const session = await ctx.manager.open(req.params.id); // a long log is read in chunks, never holding the server
    const last = req.headers['last-event-id'];
    const after = last === undefined || last === '' ? undefined : parseFrameId(last);
    if (last && !after) throw new FerretError('invalid_params', `Last-Event-ID: "${last}" is not a frame id of this server (expected SEQ or SEQ.K)`);
    const sub = new SseSubscriber(session, reply.raw, { after, maxBufferBytes: ctx.maxBufferBytes, stallMs: ctx.stallMs, logger: ctx.logger, hubs });
    subscribers.add(sub);
    // Headers Fastify's hooks set on the reply travel with the stream's own.
    const stream = new SseStream(reply.raw, { cacheControl: 'no-cache', heartbeatMs: ctx.heartbeatMs, heartbeat: 'heartbeat', headers: reply.getHeaders() });
    stream.onClose(() => {
      subscribers.delete(sub);
      sub.close(true);
    });
    // Commit the headers so the client sees the stream open; `retry:` makes EventSource come back after 1 s.
    stream.comment('ferret events', ctx.retryMs ?? 1000);
    sub.start();
  });
}
