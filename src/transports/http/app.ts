import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fastifySSE } from '@fastify/sse';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { requestGuard } from './auth.js';
import type { HttpContext, ZodApp } from './context.js';
import { errorBody, sendError, httpErrorHandler } from './errors.js';
import { controlRoutes } from './routes-control.js';
import { sessionRoutes } from './routes-session.js';
import { Health } from './schemas.js';
import { eventRoutes } from './sse-route.js';
import { FrameHubs } from './frame-hub.js';
import type { SseSubscriber } from './sse-subscriber.js';

export interface AppOptions extends HttpContext {
  token: string | undefined;
  bodyLimit: number;
  /** The Host headers to accept; undefined = any. Read per request (the port is known only after listen). */
  hosts: () => Set<string> | undefined;
  /** Plain Node handlers served at a path behind the same auth and Host checks (ACP over HTTP at /acp). */
  mounts?: HttpMount[];
}

export interface HttpMount {
  path: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** Builds the Fastify app (not listening): plugins, guard, error shape, routes, OpenAPI. */
export async function buildApp(opts: AppOptions): Promise<{ app: ZodApp; subscribers: Set<SseSubscriber> }> {
  // Fastify logs every request at info; that is debugging detail here, so its logger starts at warn.
  const loggerInstance: FastifyBaseLogger = opts.logger.child({ transport: 'http' }, { level: opts.logger.isLevelEnabled('debug') ? opts.logger.level : 'warn' });
  const app = Fastify({
    loggerInstance,
    bodyLimit: opts.bodyLimit,
    forceCloseConnections: true,
    return503OnClosing: true,
    // Node would answer a Host-less HTTP/1.1 request itself with an empty 400; let the Host guard answer it.
    serverFactory: (handler) => createServer({ requireHostHeader: false }, handler),
    // Errors Fastify raises before routing (a bad URL encoding) keep the one error shape.
    frameworkErrors: (err, _req, reply) => void sendError(reply, err),
    // Bytes that are not HTTP at all never reach Fastify's handlers: answer them in our shape too.
    clientErrorHandler: (_err, socket) => {
      if (!socket.writable) return socket.destroy();
      const body = JSON.stringify(errorBody('invalid_params', 'malformed HTTP request'));
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(httpErrorHandler);
  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)));
  app.addHook('onRequest', requestGuard({ token: opts.token, hosts: opts.hosts }));
  const mounts = opts.mounts ?? [];
  if (mounts.length) {
    // After the guard: a mounted handler reads the raw request itself (its body, its SSE streams).
    app.addHook('onRequest', async (req, reply) => {
      const path = req.url.split('?')[0];
      const mount = mounts.find((m) => m.path === path);
      if (!mount) return;
      reply.hijack();
      mount.handle(req.raw, reply.raw);
    });
  }
  app.addHook('onResponse', async (req, reply) => {
    req.log.debug({ method: req.method, url: req.url, status: reply.statusCode }, 'http request');
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'ferret HTTP API', description: 'ferret sessions over HTTP+SSE (contract section 8)', version: opts.version },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: opts.token ? [{ bearer: [] }] : [],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySSE, { heartbeatInterval: opts.heartbeatMs });

  const subscribers = new Set<SseSubscriber>();
  const hubs = new FrameHubs(opts.ideSchema);
  app.get('/health', { schema: { summary: 'Liveness (no auth)', response: { 200: Health } } }, async () => ({ ok: true as const, version: opts.version }));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  sessionRoutes(app, opts);
  controlRoutes(app, opts);
  eventRoutes(app, opts, subscribers, hubs);
  // SSE streams never end on their own: end them so close() does not wait for readers.
  app.addHook('preClose', async () => {
    for (const s of subscribers) s.close();
    subscribers.clear();
    hubs.closeAll();
  });
  return { app, subscribers };
}
