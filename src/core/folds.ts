import type { SessionEvent } from '../protocol/index.js';
import type { FoldStates } from '../store/session-store.js';

/**
 * A pure fold over a session's events that a transport needs at any seq (the SSE IDE-frame
 * translator's counters). The core runs every registered fold on every event and keeps their
 * states in the log's checkpoints and snapshot, so a reader can start at any seq without
 * folding the log from seq 1.
 */
export interface SessionFold<S = unknown> {
  readonly name: string;
  init(): S;
  apply(state: S, event: SessionEvent): void;
  /** The state as JSON (a copy). */
  save(state: S): unknown;
  /** A state back from save()'s JSON; throws on a shape it does not know. */
  restore(json: unknown): S;
}

/** The states of every registered fold for one session. */
export class FoldSet {
  private readonly states: unknown[];

  constructor(
    readonly defs: readonly SessionFold[],
    saved?: FoldStates,
  ) {
    this.states = defs.map((d) => (saved && Object.hasOwn(saved, d.name) ? d.restore(saved[d.name]) : d.init()));
  }

  /**
   * Whether saved states hold every one of these folds (states of folds this process does not
   * register are fine: they are left out from here on). A fold the saved states lack means a
   * fold from seq 1: its state is needed at every checkpoint, which only a pass over the whole
   * log gives, and that same pass rebuilds the rest.
   */
  static covers(defs: readonly SessionFold[], saved: FoldStates): boolean {
    return defs.every((d) => Object.hasOwn(saved, d.name));
  }

  apply(e: SessionEvent): void {
    for (let i = 0; i < this.defs.length; i++) this.defs[i]!.apply(this.states[i], e);
  }

  save(): FoldStates {
    const out: FoldStates = {};
    this.defs.forEach((d, i) => (out[d.name] = d.save(this.states[i])));
    return out;
  }

  /** One fold's state as JSON (a copy), or undefined when no such fold is registered. */
  saved(name: string): unknown {
    const i = this.defs.findIndex((d) => d.name === name);
    return i < 0 ? undefined : this.defs[i]!.save(this.states[i]);
  }
}
