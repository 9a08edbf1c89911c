import { z } from 'zod';
import type { Logger } from 'pino';
import type { SandboxMode, Sessions } from '../../core/index.js';
import type { Dialect, DialectContext } from './dialect.js';
import { toRpcError } from './errors.js';
import { FerretDialect } from './ferret-dialect.js';
import {
  classify,
  JSONRPC_INVALID_REQUEST,
  JSONRPC_PARSE_ERROR,
  RpcError,
  type JsonRpcId,
} from './jsonrpc.js';
import type { Channel } from './channel.js';
import { MAX_LINE_BYTES } from './line-channel.js';

export interface AcpServerOptions {
  manager: Sessions;
  logger: Logger;
  sandbox: SandboxMode;
  version: string;
  /** How long the client has to answer a file request (fs/*); default 10 s. */
  clientTimeoutMs?: number;
  /** ACP v1 clients get only the session updates ACP 0.4 had (no usage_update, config_option_update). */
  legacyUpdates?: boolean;
}

let nextConnection = 1;
/** A replay waits for the client once this much is queued for it. */
const BACKLOG_BYTES = 1024 * 1024;
/**
 * A prompt's answer goes out this long after the turn's last update, in a write of its own (what
 * follows waits behind it, so nothing is reordered). Some clients race the answer against their
 * update queue and drop what is still queued when both arrive in one read (acp-factory's
 * prompt() does); read apart, every update is handed on first. 10 ms at a turn's end is not
 * something a person sees; on a machine too loaded to schedule the client within it, acp-factory
 * can still lose the last update (its race, not ferret's order).
 */
const PROMPT_ANSWER_GAP_MS = 10;
/**
 * Methods only ACP v1 has: before any initialize they are a client that skipped it (CodeCompanion
 * may authenticate first), told so, not "method not found" from the ferret dialect's default.
 */
const V1_ONLY = new Set(['authenticate', 'logout', 'session/resume', 'session/close', 'session/fork', 'session/delete', 'session/set_config_option']);

/**
 * One ACP connection over a line channel. It frames, classifies and answers JSON-RPC;
 * what each method means is the dialect's, chosen at initialize.
 */
export class AcpConnection {
  private dialect: Dialect;
  private readonly ctx: DialectContext;
  private readonly outgoing = new Map<string | number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private nextOutId = 1;
  private inflight = new Set<Promise<void>>();
  private closed = false;
  /** Settles when the last initialize has chosen the dialect; later messages wait for it. */
  private dialectReady: Promise<unknown> = Promise.resolve();
  private initialized = false;

  constructor(
    private readonly channel: Channel,
    opts: AcpServerOptions,
  ) {
    const connectionId = `c${nextConnection++}`;
    this.ctx = {
      manager: opts.manager,
      logger: opts.logger.child({ connectionId }),
      sandbox: opts.sandbox,
      version: opts.version,
      connectionId,
      clientTimeoutMs: opts.clientTimeoutMs ?? 10_000,
      legacyUpdates: opts.legacyUpdates ?? false,
      notify: (method, params) => channel.send({ jsonrpc: '2.0', method, params }),
      backpressure: () => ((channel.backlog?.() ?? 0) > BACKLOG_BYTES && !this.closed ? channel.drain() : undefined),
      request: (method, params, signal) => {
        // After the client left, an agent→client call (editor fs, permission) fails at once rather than hanging a turn.
        if (this.closed) return Promise.reject(new Error('the client closed the connection'));
        if (signal?.aborted) return Promise.reject(new Error(`${method} cancelled`));
        const id = this.nextOutId++;
        channel.send({ jsonrpc: '2.0', id, method, params });
        return new Promise((resolve, reject) => {
          const onAbort = () => {
            this.outgoing.delete(id); // a late answer is then a stray response, ignored
            // Tell the client too, so it withdraws what it shows (Zed closes a permission prompt).
            channel.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: id } });
            reject(new Error(`${method} cancelled`));
          };
          signal?.addEventListener('abort', onAbort, { once: true });
          const done = () => signal?.removeEventListener('abort', onAbort);
          this.outgoing.set(id, { resolve: (v) => (done(), resolve(v)), reject: (e) => (done(), reject(e)) });
        });
      },
    };
    this.dialect = new FerretDialect(this.ctx); // until initialize says otherwise
  }

  /**
   * Reads until the input closes, then detaches from every session at once and resolves.
   * Requests still running (a turn) finish on the core's schedule; their answers go nowhere.
   */
  run(): Promise<void> {
    return new Promise((resolve) => {
      this.channel.onLine(
        (line) => this.onLine(line),
        () => {
          this.closed = true;
          for (const o of this.outgoing.values()) o.reject(new Error('the client closed the connection'));
          this.outgoing.clear();
          void this.dialectReady.finally(() => {
            this.dialect.close();
            resolve();
          });
        },
      );
    });
  }

  private onLine(line: string | null): void {
    if (line === null) {
      return this.error(null, new RpcError(JSONRPC_INVALID_REQUEST, `Invalid Request: line longer than ${MAX_LINE_BYTES} bytes`));
    }
    const msg = classify(line);
    switch (msg.kind) {
      case 'parse_error':
        return this.error(null, new RpcError(JSONRPC_PARSE_ERROR, msg.message));
      case 'invalid':
        return this.error(msg.id, new RpcError(JSONRPC_INVALID_REQUEST, msg.message));
      case 'response': {
        // Stray responses (unknown or null ids) are ignored, as real clients send them.
        const waiting = msg.id === null ? undefined : this.outgoing.get(msg.id);
        if (!waiting || msg.id === null) return;
        this.outgoing.delete(msg.id);
        if (msg.error) waiting.reject(new RpcError(msg.error.code, msg.error.message, msg.error.data));
        else waiting.resolve(msg.result);
        return;
      }
      case 'notification':
        // A session/cancel right behind a prompt for a session still loading waits for the same
        // load, and so reaches the dialect after that prompt (both wait on one promise, in order).
        void this.dialectReady.then(() => this.notify(msg.method, msg.params));
        return;
      case 'request': {
        // A client may pipeline session/new right behind initialize: it must reach the dialect
        // initialize picks, so nothing is dispatched until that choice is made.
        const p = this.dialectReady.then(() => this.answer(msg.id, msg.method, msg.params)).finally(() => this.inflight.delete(p));
        if (msg.method === 'initialize') this.dialectReady = p;
        this.inflight.add(p);
        return;
      }
    }
  }

  /** The same steps as answer()'s (an async call awaiting preload): a notification and a request read in one chunk reach the dialect in the order sent. */
  private async notify(method: string, params: unknown): Promise<void> {
    await this.preload(params);
    try {
      this.dialect.notification(method, params);
    } catch (err) {
      this.ctx.logger.warn({ err, method }, 'notification failed');
    }
  }

  private async answer(id: JsonRpcId, method: string, params: unknown): Promise<void> {
    try {
      await this.preload(params); // the same number of steps as a notification's (see onLine): order is kept
      if (method !== 'initialize' && !this.initialized && V1_ONLY.has(method)) {
        throw new RpcError(JSONRPC_INVALID_REQUEST, `Not initialized: send initialize before ${method}`, { method });
      }
      const result = method === 'initialize' ? await this.initialize(params) : await this.dialect.request(method, params);
      const answer = { jsonrpc: '2.0', id, result: result ?? {} };
      if (method === 'session/prompt' && this.channel.sendApart) this.channel.sendApart(answer, PROMPT_ANSWER_GAP_MS);
      else this.channel.send(answer);
    } catch (err) {
      const e = toRpcError(err);
      if (e.code === -32603) this.ctx.logger.error({ err, method }, 'request failed');
      this.error(id, e);
    }
  }

  /**
   * A request naming a session this process has not loaded (or let go while idle) loads it first,
   * in chunks that never hold the event loop; the dialect then finds it in memory. A failure
   * (unknown id, another process's session) is left for the dialect to report in its own words.
   */
  private async preload(params: unknown): Promise<void> {
    const id = typeof params === 'object' && params !== null ? (params as { sessionId?: unknown }).sessionId : undefined;
    if (typeof id !== 'string' || !(await this.ctx.manager.has(id).catch(() => false))) return;
    await this.ctx.manager.open(id).catch(() => undefined);
  }

  /** Dialect choice (contract section 7): an integer protocolVersion is official ACP v1. */
  private async initialize(params: unknown): Promise<unknown> {
    const version = z.object({ protocolVersion: z.unknown().optional() }).loose().safeParse(params ?? {});
    const v = version.success ? version.data.protocolVersion : undefined;
    // The v1 dialect (ACP SDK, MCP client) loads only for clients that speak it.
    const next: Dialect =
      typeof v === 'number' && Number.isInteger(v)
        ? (await import('./v1/index.js')).createAcpV1Dialect(this.ctx)
        : new FerretDialect(this.ctx);
    this.dialect.close();
    this.dialect = next;
    const answer = await next.initialize(params);
    this.initialized = true;
    return answer;
  }

  private error(id: JsonRpcId, e: RpcError): void {
    this.channel.send({ jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } });
  }
}
