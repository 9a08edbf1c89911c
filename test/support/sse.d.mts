import type { IncomingMessage } from 'node:http';
import type { Json } from './http.mjs';

/** One dispatched SSE event; `data` is the JSON of `text`, parsed on first use (counting readers never pay for it). */
export declare class SseFrame {
  /** The frame's `id:` ('' when it had none). */
  readonly id: string;
  /** The frame's `event:` ('message' when it had none). */
  readonly event: string;
  /** The `data:` lines, joined with newlines. */
  readonly text: string;
  readonly data: Json;
}

export interface SseOptions {
  token?: string;
  /** Sent as Last-Event-ID: the stream resumes after that frame. */
  lastEventId?: string;
  /** Open without reading (a reader that stops reading); resume() starts it. */
  paused?: boolean;
  /** Keep every frame in `frames` (default true); false only counts, for many readers. */
  keep?: boolean;
  /** Called for every frame with its arrival time (ms since the epoch, sub-ms). */
  onFrame?: (frame: SseFrame, arrivalEpochMs: number) => void;
}

/**
 * An SSE reader: parses id/event/data/retry fields and comments (LF-framed, as ferret sends),
 * resumes with Last-Event-ID, keeps every frame (unless keep: false) and counts them per event,
 * can start paused (a reader that stops reading) and be cut mid-stream.
 */
export declare class SseClient {
  constructor(url: string, path: string, opts?: SseOptions);
  readonly frames: SseFrame[];
  /** Frames dispatched so far (kept or not). */
  readonly total: number;
  /** Comment lines (`: ...`, the heartbeats) seen so far. */
  readonly comments: number;
  /** The last `id:` seen: what to resume from. */
  readonly lastEventId: string;
  /** The last `retry:` the server sent, if any. */
  readonly retryMs: number | undefined;
  readonly res: IncomingMessage | undefined;
  /** Resolves with the HTTP status once the response head arrived. */
  readonly opened: Promise<number>;
  /** Resolves when the stream ended, however it ended. */
  readonly ended: Promise<void>;
  readonly closed: boolean;
  readonly error: Error | undefined;
  /** How many frames of this event arrived so far. */
  count(event: string): number;
  /** Resolves once pred(frames, this) holds; rejects when the stream ends first or after timeoutMs (default 10 s). */
  waitFor(pred: (frames: SseFrame[], client: SseClient) => boolean, timeoutMs?: number): Promise<void>;
  /** Starts reading a reader opened with paused: true. */
  resume(): void;
  /** Drops the connection the way a crashed client or a network cut would. */
  close(): void;
}
