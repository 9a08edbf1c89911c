import type { EventDraft, EventOf } from '../../protocol/index.js';
import type { SessionHandle } from '../api.js';

/**
 * A session in the table, as the table keeps it: the handle transports hold, plus what letting
 * it go takes. LocalSession (written here) and a followed fleet session both are one.
 */
export interface LiveSession extends SessionHandle {
  /** When a client last used it (ms since epoch): idle sessions are let go first. */
  lastActive: number;
  /** No turn, no waiting permission, no client attached or listening: it may leave memory. */
  readonly idle: boolean;
  /** Its running turn waits on a person (a question, a held write); absent: a turn here never does. */
  readonly waitingOnPerson?: boolean;
  readonly isClosed: boolean;
  /** Its log can never write again while its store is fine: let go, and loaded afresh when asked. */
  readonly defunct: boolean;
  /** Resolves when the whole state (a loaded session's history) is in memory. */
  ready(): Promise<void>;
  /** Waits for the running turn, if any, to end. */
  settled(): Promise<void>;
  /** Keeps the whole state at the log's end (a writer's; a follower's writer keeps its own). */
  snapshot(): Promise<void>;
  /** Its summary into the store's index (`final`: beside its log too). */
  saveMeta(final?: boolean): void;
  /** Stops at once: cancels its turn, detaches every client, closes its log. */
  close(): void;
  /** Ends its background processes now (a close asked for: they no longer hold it in memory). */
  endProcesses?(): void;
  /** A snapshot, then close. */
  release(): Promise<void>;
  /** Appends an event (a session another server writes refuses, naming it). */
  emit<E extends EventDraft>(draft: E): EventOf<E['type']>;
}
