import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Json } from './http.mjs';
import type { StderrLog } from './stderr-log.mjs';

export type { Json } from './http.mjs';

export interface FerretClientOptions {
  cwd?: string;
  /** Keep every message in `messages`/`stdoutLines` (default true); benchmarks turn it off. */
  record?: boolean;
  /** How long a request may wait for its answer (default 10 s; 0 = no limit). */
  timeoutMs?: number;
  /** Keep only the tail of stderr past this many chars (default: all). */
  stderrLimit?: number;
  /** Run the server as this user and group (spawn.mjs). */
  uid?: number;
  gid?: number;
}

/**
 * Spawns `chimera ferret serve ARGS`, speaks newline-delimited JSON-RPC, and records every line it
 * gets (unless record: false) so callers can assert what a user's editor would see. A server that
 * dies fails every pending request and wait at once, quoting its stderr.
 */
export declare class FerretClient {
  /** @param env added to process.env for the server (FERRET_LOG_LEVEL defaults to warn) */
  constructor(args: string[], env?: NodeJS.ProcessEnv, opts?: FerretClientOptions);
  readonly child: ChildProcessWithoutNullStreams;
  readonly log: StderrLog;
  /** Every message received, in order. */
  readonly messages: Json[];
  /** Every stdout line received, as text. */
  readonly stdoutLines: string[];
  /** Everything the server wrote to stderr so far. */
  readonly stderr: string;
  /** performance.now() just before the spawn. */
  readonly startedAt: number;
  /** Resolves with the exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** Called with each session/update's params and its arrival time (ms since the epoch). */
  onUpdate: ((params: Json, arrivalEpochMs: number) => void) | undefined;
  sendRaw(line: string): void;
  /** Sends a request and resolves with the whole response (result or error). */
  request(method: string, params?: unknown, id?: number | string): Promise<Json>;
  /** Like request, but resolves with the result and rejects on an error answer. */
  call(method: string, params?: unknown): Promise<Json>;
  /** Resolves with the first message (already recorded, or still to come) matching pred. */
  waitFor(pred: (m: Json) => boolean, timeoutMs?: number): Promise<Json>;
  /** The params of every session/update so far (of one session, when given). */
  updates(sessionId?: string): Json[];
  /** The kinds of those updates, in order. */
  kinds(sessionId?: string): string[];
  /** With --http: the URL from the "listening" log line (FERRET_LOG_LEVEL info or lower). */
  listening(timeoutMs?: number): Promise<string>;
  /** Ends stdin the way an editor quits (plus SIGTERM with --http, which outlives stdin by design); SIGKILL after 5 s. */
  close(): Promise<number | null>;
  /** SIGTERM, the way an operator stops a server; SIGKILL after 5 s. */
  stop(): Promise<number | null>;
  /** SIGKILL, and the exit. */
  kill(): Promise<number | null>;
}

/** Spawns `chimera ferret serve --http --port 0 ARGS` (stdio stays open) and learns its URL from the listening log line. */
export declare function startHttp(args: string[], env?: NodeJS.ProcessEnv): Promise<{ proc: FerretClient; url: string }>;
