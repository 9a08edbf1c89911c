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
  /** Bytes that may wait for a live SSE reader: a frame that finds more waiting drops it. */
  maxBufferBytes: number;
  /** How long a reader may take to bring one frame bigger than maxBufferBytes back under it. */
  stallMs: number;
  /** The `retry:` SSE streams open with: how soon EventSource reconnects (ms; default 1000). */
  retryMs?: number;
}

/** The Fastify instance with the zod type provider, as every route module receives it. */
export type ZodApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

/** Describes a session as ferret's session/new answers it. */
export function describeSession(s: Session) {
  const st = s.state;
  return { sessionId: s.id, mode: st.mode, model: st.model, sandbox: st.sandbox, approval: st.approval, cwd: st.cwd };
}
