import fastifySwagger from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { ZodApp } from './context.js';
import { optionalNullableBodies, pruneUnusedSchemas } from './openapi-prune.js';
import { errors } from './schemas.js';

/** The OpenAPI document: built from every route's schema (registered before the routes, so it sees them all). */
export async function openApiPlugin(app: ZodApp, version: string): Promise<void> {
  // Fastify reads the body of every POST and DELETE (a body schema or not), so any of them can
  // answer 413 and 415: the document says so for each (before @fastify/swagger reads the route schemas).
  app.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (!response || ![route.method].flat().some((m) => m === 'POST' || m === 'DELETE')) return;
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
        version,
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
}
