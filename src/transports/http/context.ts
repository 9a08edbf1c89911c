import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { SandboxMode, SessionHandle, Sessions } from '../../core/index.js';

/** What the route modules share: the core, the server's settings. */
export interface HttpContext {
  manager: Sessions;
  logger: Logger;
  version: string;
  sandbox: SandboxMode;
  ideSchema: boolean;
  heartbeatMs: number;
  /** Bytes a live SSE reader may stay behind for stallMs (16× that drops it at once). */
  maxBufferBytes: number;
  /** How long a reader may stay more than maxBufferBytes behind before it is dropped. */
  stallMs: number;
  /** The `retry:` SSE streams open with: how soon EventSource reconnects (ms; default 1000). */
  retryMs?: number;
}

/** The Fastify instance with the zod type provider, as every route module receives it. */
export type ZodApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

/** Describes a session as ferret's session/new answers it. */
export function describeSession(s: SessionHandle) {
  const st = s.state;
  return { sessionId: s.id, mode: st.mode, model: st.model, sandbox: st.sandbox, approval: st.approval, cwd: st.cwd };
}
