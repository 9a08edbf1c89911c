import type { components } from './schema.js';

/** One frame of GET /session/:id/events, discriminated by `event` (the document's SseFrame). */
export type SseFrame = components['schemas']['SseFrame'];
/** The event names the stream sends. */
export type SseEventName = SseFrame['event'];
/** The frame of one event name. */
export type FrameOf<E extends SseEventName> = Extract<SseFrame, { event: E }>;

/** One event as text/event-stream carries it, before its data is parsed. */
export interface RawSseEvent {
  /** The last `id:` seen ('' when none yet). */
  id: string;
  /** `event:` ('message' when absent). */
  event: string;
  /** The `data:` lines joined with newlines. */
  data: string;
}

/** A text/event-stream parser (WHATWG): LF, CRLF or CR line ends, comments, id, event, data, retry. */
export declare class SseParser {
  /** The last `id:` seen. */
  readonly lastId: string;
  /** The last valid `retry:` in ms. */
  readonly retry: number | undefined;
  /** Comment lines (`: heartbeat`) seen. */
  readonly comments: number;
  /** Feeds decoded text; returns the events it completed. */
  push(text: string): RawSseEvent[];
  /** The stream ended: returns what a trailing CR completes; a half event is dropped. */
  end(): RawSseEvent[];
}

/** A ferret frame id (`SEQ` or `SEQ.K`) as [seq, k]; undefined for anything else. */
export declare function parseFrameId(id: string): [seq: number, k: number] | undefined;
/** Numeric order of two parsed frame ids: negative, 0 or positive. */
export declare function compareFrameIds(a: readonly [number, number], b: readonly [number, number]): number;

/** The fetch the client calls (Node 20's global fetch by default). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface EventStreamOptions {
  /** Resume after this frame id (`SEQ` or `SEQ.K`; `'0'` replays the whole session). Frames at or before it are never yielded. */
  lastEventId?: string | undefined;
  /** Aborting it ends the iteration quietly, like close(). */
  signal?: AbortSignal | undefined;
  /** Wait before a reconnect when the server sent no `retry:` (default 1000 ms). */
  retryMs?: number;
  /** Cap of the doubling backoff after failed reconnects (default 30000 ms; never below `retry:`). */
  maxRetryMs?: number;
  /** Failed connection attempts in a row before the iterator throws the last error (default 10). */
  maxRetries?: number;
  /** A connection silent this long (no frame, no heartbeat) counts as cut (default 45000 ms; 0 = never). */
  idleTimeoutMs?: number;
  /** Reconnect after a cut (default true); false: the iteration ends with the connection. */
  reconnect?: boolean;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/**
 * The frames of one session's event stream. Connects at once (await `opened` before sending a
 * message so nothing after it is missed) and is iterated once with `for await`. After a cut it
 * reconnects with Last-Event-ID = `lastEventId`, waiting `retryMs` (the server's `retry:` when
 * sent), doubling after each failed attempt; it never yields an id at or before one it already
 * yielded. A 4xx (bad session, bad token) throws a FerretHttpError at once; `close()`, the signal
 * or a `break` ends it quietly.
 */
export declare class FerretEventStream implements AsyncIterable<SseFrame> {
  constructor(url: string, opts?: EventStreamOptions & { fetch?: FetchLike });
  /** Resolves once the first connection answered 200 (the stream is live); rejects if it never does. */
  readonly opened: Promise<void>;
  /** The id of the last frame yielded (or the lastEventId it started from). */
  readonly lastEventId: string | undefined;
  /** How many times it reconnected after a cut. */
  readonly reconnects: number;
  /** Comment lines (the server's `: heartbeat`s) seen on every connection so far. */
  readonly comments: number;
  /** The wait before a reconnect: the server's last `retry:`, else the retryMs option. */
  readonly retryMs: number;
  readonly closed: boolean;
  /** Drops the connection and ends the iteration (no error). */
  close(): void;
  [Symbol.asyncIterator](): AsyncIterator<SseFrame, undefined, undefined>;
}

/** The server sent something that is not ferret's event stream (wrong content type, non-JSON data). */
export declare class SseProtocolError extends Error {
  readonly name: 'SseProtocolError';
}
