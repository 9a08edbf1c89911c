import type { Checkpoint, LoadedSnapshot } from './session-store.js';

// Both stores hand out a snapshot alike (the file store's and redis/snapshot.ts): the header's state
// at once, the items read their own way when asked for, and a short read refused.

/** What a snapshot's header holds, in both stores. */
export interface SnapshotHeadline extends Checkpoint {
  state: unknown;
  /** How many items the snapshot has. */
  items: number;
}

/** The snapshot `h` of session `id`, its items read by `read` when asked for; fewer than the header says fails the read. */
export function loadedSnapshot(id: string, h: SnapshotHeadline, read: () => Promise<unknown[]>): LoadedSnapshot {
  return {
    seq: h.seq,
    at: h.at,
    folds: h.folds,
    state: h.state,
    itemCount: h.items,
    readItems: async () => {
      const out = await read();
      if (out.length !== h.items) throw new Error(`snapshot of session ${id}: ${out.length} of ${h.items} items`);
      return out;
    },
  };
}
