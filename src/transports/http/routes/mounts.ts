import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodApp } from '../context.js';

export interface HttpMount {
  /** The exact path served, or with `prefix`, the start of every path served (`/acp/` for `/acp/{id}`). */
  path: string;
  prefix?: boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/** Every method a mount answers (the ACP handlers answer 405 themselves for the ones they do not serve). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * ACP over HTTP (`/acp`, `/acp/{name}`) as routes of the guarded context: the guard has run when
 * the route's own onRequest hands the raw request to the ACP handler, before Fastify reads the
 * body, so the handler reads it itself (its own size limit and problem+json answers) and writes
 * its streams. Hidden from the OpenAPI document: ACP is not the HTTP API.
 */
export function mountRoutes(app: ZodApp, mounts: HttpMount[]): void {
  for (const mount of mounts) {
    const url = mount.prefix ? `${mount.path.replace(/\/$/, '')}/*` : mount.path;
    app.route({
      method: METHODS,
      url,
      schema: { hide: true },
      onRequest: async (req, reply) => {
        reply.hijack();
        mount.handle(req.raw, reply.raw);
      },
      handler: async () => undefined,
    });
  }
}
