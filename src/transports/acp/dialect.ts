import type { Logger } from 'pino';
import type { SandboxMode, Sessions } from '../../core/index.js';

/** What a dialect needs from its connection and the server. */
export interface DialectContext {
  manager: Sessions;
  logger: Logger;
  sandbox: SandboxMode;
  version: string;
  connectionId: string;
  /** How long the client has to answer a file request (fs/*) before the call fails. */
  clientTimeoutMs: number;
  /** Send only the session updates ACP 0.4 had: an old client's schema rejects (and logs) the rest. */
  legacyUpdates: boolean;
  /** Sends a JSON-RPC notification to this connection's client. */
  notify(method: string, params: unknown): void;
  /**
   * A promise while the client is behind on what was sent (its pipe full): a long replay waits on
   * it between chunks instead of piling the whole history up in memory. Undefined: go on.
   */
  backpressure?: () => Promise<void> | undefined;
  /** Sends a JSON-RPC request to the client and resolves with its result (ACP v1's agent→client calls); `signal` stops the wait. */
  request(method: string, params: unknown, signal?: AbortSignal): Promise<unknown>;
}

/** One protocol spoken on a connection, chosen at initialize. */
export interface Dialect {
  initialize(params: unknown): Promise<unknown>;
  request(method: string, params: unknown): Promise<unknown>;
  notification(method: string, params: unknown): void;
  close(): void;
}
