import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fastifySSE } from '@fastify/sse';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { requestGuard } from './auth.js';
import { BrowserSessions } from './browser-auth.js';
import { consoleRoutes, loadConsoleFiles } from './console-static.js';
import type { HttpContext, ZodApp } from './context.js';
import { errorBody, sendError, httpErrorHandler } from './errors.js';
import { authRoutes } from './routes-auth.js';
import { controlRoutes } from './routes-control.js';
import { sessionRoutes } from './routes-session.js';
import { optionalNullableBodies, pruneUnusedSchemas } from './openapi-prune.js';
import { errors, guardErrors, Health, OpenApiDocument } from './schemas.js';
import { eventRoutes } from './sse-route.js';
import { FrameHubs } from './frame-hub.js';
import { FORWARDED_HEADER, forwardRequest } from './forward.js';
import type { SseSubscriber } from './sse-subscriber.js';

export interface AppOptions extends HttpContext {
  token: string | undefined;
  bodyLimit: number;
  /** The Host headers to accept; undefined = any. Read per request (the port is known only after listen). */
  hosts: () => Set<string> | undefined;
  /** How long a client may take to send its headers / its whole request (default 10 s / 30 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Plain Node handlers served at a path behind the same auth and Host checks (ACP over HTTP at /acp). */
  mounts?: HttpMount[];
  /** The built web console (dist/console) to serve at /; none = GET / says it is not built. */
  consoleDir?: string | undefined;
}

export interface HttpMount {
  /** The exact path served, or with `prefix`, the start of every path served (`/acp/` for `/acp/{id}`). */
  path: string;
  prefix?: boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** Builds the Fastify app (not listening): plugins, guard, error shape, routes, OpenAPI. */
export async function buildApp(opts: AppOptions): Promise<{ app: ZodApp }> {
  // Fastify logs every request at info; that is debugging detail here, so its logger starts at warn.
  const loggerInstance: FastifyBaseLogger = opts.logger.child({ transport: 'http' }, { level: opts.logger.isLevelEnabled('debug') ? opts.logger.level : 'warn' });
  const app = Fastify({
    loggerInstance,
    bodyLimit: opts.bodyLimit,
    forceCloseConnections: true,
    return503OnClosing: true,
    // Node would answer a Host-less HTTP/1.1 request itself with an empty 400; let the Host guard answer it.
    // A client that trickles its headers or body is cut (408) instead of holding a socket forever.
    serverFactory: (handler) =>
      createServer({ requireHostHeader: false, headersTimeout: opts.headersTimeoutMs ?? 10_000, requestTimeout: opts.requestTimeoutMs ?? 30_000, connectionsCheckingInterval: 1000 }, handler),
    // Errors Fastify raises before routing (a bad URL encoding) keep the one error shape.
    frameworkErrors: (err, _req, reply) => void sendError(reply, err),
    // Bytes that are not HTTP at all never reach Fastify's handlers: answer them in our shape too.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable) return socket.destroy();
      const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT';
      const body = JSON.stringify(timedOut ? errorBody('request_timeout', 'the request did not arrive in time') : errorBody('invalid_params', 'malformed HTTP request'));
      const status = timedOut ? '408 Request Timeout' : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(httpErrorHandler);
  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)));
  const consoleFiles = opts.consoleDir ? loadConsoleFiles(opts.consoleDir) : undefined;
  const browser = new BrowserSessions();
  // Host, cross-site (every route, the /acp mount included) and auth checks: auth.ts, cross-site.ts.
  app.addHook('onRequest', requestGuard({ token: opts.token, hosts: opts.hosts, browser, isPublic: (path) => consoleFiles?.has(path) ?? false }));
  // A session this process has not loaded (or let go while idle) is loaded ahead, in chunks that
  // never hold the server; the routes then find it in memory. Failures surface from the route.
  // In a fleet, a command for a session another server writes is sent there and answered with
  // its answer (reads and SSE are served here, from the shared store).
  app.addHook('preHandler', async (req, reply) => {
    const id = (req.params as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string' || !(await opts.manager.has(id).catch(() => false))) return;
    const self = opts.manager.fleetInstance;
    const command = req.method !== 'GET';
    const opened = await opts.manager.open(id, { write: command }).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (self === undefined || !command) return; // a read: the route reports what went wrong
    // A command in a fleet: why the session cannot be served (Redis away, no workspace here) is the answer.
    if (opened !== undefined) return sendError(reply, opened);
    if (req.headers[FORWARDED_HEADER] !== undefined) return;
    let target;
    try {
      target = await opts.manager.forwardTarget(id);
    } catch (err) {
      return sendError(reply, err);
    }
    if (target) return forwardRequest(req, reply, target, self);
  });
  const mounts = opts.mounts ?? [];
  if (mounts.length) {
    // After the guard: a mounted handler reads the raw request itself (its body, its SSE streams).
    app.addHook('onRequest', async (req, reply) => {
      const path = req.url.split('?')[0] ?? '';
      const mount = mounts.find((m) => (m.prefix ? path.startsWith(m.path) : m.path === path));
      if (!mount) return;
      reply.hijack();
      mount.handle(req.raw, reply.raw);
    });
  }
  app.addHook('onResponse', async (req, reply) => {
    req.log.debug({ method: req.method, url: req.url, status: reply.statusCode }, 'http request');
  });

  // Fastify reads the body of every POST (a body schema or not), so any POST can answer 413 and
  // 415: the document says so for each (before @fastify/swagger reads the route schemas).
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!response || ![route.method].flat().includes('POST')) return;
    route.schema = { ...route.schema, response: { ...errors(413, 415), ...response } };
  });
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ferret HTTP API',
        description:
          'ferret sessions over HTTP+SSE: the same live sessions an editor drives over ACP on stdio. ' +
          'Every route but /health needs `Authorization: Bearer $FERRET_SERVER_TOKEN` when the server has a token ' +
          '(a loopback server started without one accepts requests without it). The web console at / logs in ' +
          'instead (the auth routes: a cookie plus an X-Ferret-CSRF header). A browser request from another site ' +
          '(Sec-Fetch-Site, Origin) without the Bearer token is refused with 403. Errors are always JSON: ' +
          '`{"error":{"code","message"}}` with `code` from the ErrorCode enum.',
        version: opts.version,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'the server that serves this document' }],
      tags: [
        { name: 'sessions', description: 'Create, list and inspect sessions' },
        { name: 'turns', description: 'Messages, cancel and permission answers' },
        { name: 'settings', description: 'Mode, model, approval, sandbox' },
        { name: 'events', description: 'The live event stream (SSE)' },
        { name: 'server', description: 'Liveness and this document' },
        { name: 'auth', description: "The web console's login (cookie + CSRF token); bots use the Bearer token" },
      ],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'FERRET_SERVER_TOKEN' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (doc) => optionalNullableBodies(pruneUnusedSchemas(jsonSchemaTransformObject(doc))),
  });
  await app.register(fastifySSE, { heartbeatInterval: opts.heartbeatMs });

  const subscribers = new Set<SseSubscriber>();
  const hubs = new FrameHubs(opts.ideSchema);
  app.get('/health', {
    schema: { operationId: 'health', tags: ['server'], summary: 'Liveness (no token needed)', security: [], response: { 200: Health, ...errors(403) } },
  }, async () => ({ ok: true as const, version: opts.version, ...opts.manager.storeStatus() }));
  app.get('/openapi.json', {
    schema: { operationId: 'openapi', tags: ['server'], summary: 'This OpenAPI document', response: { 200: OpenApiDocument, ...guardErrors } },
  }, async () => app.swagger() as { openapi: string });
  sessionRoutes(app, opts);
  authRoutes(app, { token: opts.token, browser });
  consoleRoutes(app, consoleFiles);
  controlRoutes(app, opts);
  eventRoutes(app, opts, subscribers, hubs);
  // SSE streams never end on their own: end them so close() does not wait for readers.
  app.addHook('preClose', async () => {
    for (const s of subscribers) s.close();
    subscribers.clear();
    hubs.closeAll();
  });
  return { app };
}
