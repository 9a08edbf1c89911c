import { createServer } from 'node:http';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { requireAuth, siteGuard } from './guard/auth.js';
import { BrowserSessions } from './guard/browser-auth.js';
import { consoleRoutes, loadConsoleFiles } from './routes/console-static.js';
import type { HttpContext, ZodApp } from './context.js';
import { errorBody, sendError, httpErrorHandler } from './errors.js';
import { lingerOnRefusedBodies } from './linger.js';
import { openApiPlugin } from './openapi.js';
import { authRoutes, loginRoutes } from './routes/auth.js';
import { controlRoutes } from './routes/control.js';
import { undoRoutes } from './routes/undo.js';
import { mountRoutes, type HttpMount } from './routes/mounts.js';
import { openSessionsAhead } from './routes/open-ahead.js';
import { healthRoute, openApiRoute } from './routes/server.js';
import { sessionRoutes } from './routes/session.js';
import { eventRoutes } from './sse/route.js';
import { FrameHubs } from './sse/frame-hub.js';
import type { SseSubscriber } from './sse/sse-subscriber.js';

export type { HttpMount };

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

/**
 * Builds the Fastify app (not listening). Every request passes the site guard (Host, cross-site,
 * who it is); the public routes (liveness, the console's files, its login) are registered beside
 * the guarded context, everything else (the API, ACP over HTTP, the 404 answer) inside it, where
 * a request must prove itself when the server has a token.
 */
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
  const browser = new BrowserSessions();
  lingerOnRefusedBodies(app);
  app.addHook('onRequest', siteGuard({ token: opts.token, hosts: opts.hosts, browser }));
  app.addHook('onResponse', async (req, reply) => {
    req.log.debug({ method: req.method, url: req.url, status: reply.statusCode }, 'http request');
  });
  await openApiPlugin(app, opts.version);

  const subscribers = new Set<SseSubscriber>();
  const hubs = new FrameHubs(opts.ideSchema);
  const consoleFiles = opts.consoleDir ? loadConsoleFiles(opts.consoleDir) : undefined;
  // Public routes (no token needed: liveness, the console's files, its login) are registered
  // beside the guarded contexts, never inside them. Contexts are registered in the order the
  // OpenAPI document has always listed the routes in (the typed client is generated from it).
  const open = (routes: (scope: ZodApp) => void) => app.register(async (scope: ZodApp) => routes(scope));
  const guarded = (routes: (scope: ZodApp) => void) =>
    app.register(async (scope: ZodApp) => {
      scope.addHook('onRequest', requireAuth(opts.token));
      openSessionsAhead(scope, opts.manager);
      routes(scope);
    });
  await open((scope) => {
    healthRoute(scope, opts);
    consoleRoutes(scope, consoleFiles);
  });
  await guarded((scope) => {
    // An unknown route answers 404 only to a request that may know the API is here.
    scope.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)));
    openApiRoute(scope, app);
    sessionRoutes(scope, opts);
  });
  await open((scope) => loginRoutes(scope, { token: opts.token, browser }));
  await guarded((scope) => {
    authRoutes(scope, { token: opts.token, browser });
    controlRoutes(scope, opts);
    undoRoutes(scope, opts);
    eventRoutes(scope, opts, subscribers, hubs);
    mountRoutes(scope, opts.mounts ?? []);
  });
  // SSE streams never end on their own: end them so close() does not wait for readers.
  app.addHook('preClose', async () => {
    for (const s of subscribers) s.close();
    subscribers.clear();
    hubs.closeAll();
  });
  return { app };
}
