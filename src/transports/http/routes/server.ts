import type { HttpContext, ZodApp } from '../context.js';
import { errors, guardErrors, Health, OpenApiDocument } from '../schemas.js';

/** GET /health: liveness, no token needed (public: registered beside the guarded routes). */
export function healthRoute(app: ZodApp, ctx: HttpContext): void {
  app.get('/health', {
    schema: { operationId: 'health', tags: ['server'], summary: 'Liveness (no token needed)', security: [], response: { 200: Health, ...errors(403) } },
  }, async () => ({ ok: true as const, version: ctx.version, ...ctx.manager.storeStatus() }));
}

/** GET /openapi.json: the document of the whole app (`root`, where @fastify/swagger is registered). */
export function openApiRoute(app: ZodApp, root: ZodApp): void {
  app.get('/openapi.json', {
    schema: { operationId: 'openapi', tags: ['server'], summary: 'This OpenAPI document', response: { 200: OpenApiDocument, ...guardErrors } },
  }, async () => root.swagger() as { openapi: string });
}
