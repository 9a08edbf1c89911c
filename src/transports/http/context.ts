import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { SandboxMode, Session, SessionManager } from '../../core/index.js';

/** What the route modules share: the core, the server's settings. */
export interface HttpContext {
  manager: SessionManager;
  logger: Logger;
  version: string;
  sandbox: SandboxMode;
  ideSchema: boolean;
  heartbeatMs: number;
  maxBufferBytes: number;
  stallMs: number;
}

/** The Fastify instance with the zod type provider, as every route module receives it. */
export type ZodApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

/** Describes a session as ferret's session/new answers it. */
export function describeSession(s: Session) {
  const st = s.state;
  return { sessionId: s.id, mode: st.mode, model: st.model, sandbox: st.sandbox, approval: st.approval, cwd: st.cwd };
}
