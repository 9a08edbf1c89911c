// Edits the agent wrote through `fs/write_text_file`, held until the person accepts or rejects
// them. Nothing here touches the disk, and the write request is answered only with the person's
// decision (ferret waits for it: the client advertises `reviewsWrites`), so the agent's next step
// sees the file the person agreed to. Pure: the VS Code side listens to `onChange`.

export interface PendingEdit {
  path: string;
  /** The file as it was before the agent's first write (buffer or disk); null: it did not exist. */
  original: string | null;
  /** What the agent wants the file to be (its latest write). */
  proposed: string;
  /** Bumped on every write, so a diff view can tell it changed. */
  rev: number;
  /** The session that wrote it. */
  sessionId: string;
}

type Listener = (path: string) => void;

/** What the person decided about a held write. */
export type Decision = { kind: 'accepted' } | { kind: 'rejected'; reason?: string } | { kind: 'withdrawn' };

export class PendingEdits {
  private readonly edits = new Map<string, PendingEdit>();
  private readonly listeners = new Set<Listener>();
  /** The agent's write requests waiting for the person, by path. */
  private readonly waiting = new Map<string, (d: Decision) => void>();

  /** A write: the first one for a path records `original`; later ones only replace `proposed`. */
  stage(sessionId: string, path: string, proposed: string, original: string | null): PendingEdit {
    const prev = this.edits.get(path);
    const edit: PendingEdit = prev ? { ...prev, proposed, rev: prev.rev + 1, sessionId } : { path, original, proposed, rev: 1, sessionId };
    this.edits.set(path, edit);
    this.emit(path);
    return edit;
  }

  get(path: string): PendingEdit | undefined {
    return this.edits.get(path);
  }

  /** Removes and returns the edit (Accept applies it, Reject drops it). */
  take(path: string): PendingEdit | undefined {
    const e = this.edits.get(path);
    if (e) {
      this.edits.delete(path);
      this.emit(path);
    }
    return e;
  }

  /**
   * The person's decision on `path`'s edit, when they make it. A second write to the same path
   * before a decision answers the first as accepted into the second (the diff shows both).
   */
  decision(path: string): Promise<Decision> {
    this.waiting.get(path)?.({ kind: 'accepted' });
    const decided = new Promise<Decision>((resolve) => this.waiting.set(path, resolve));
    this.emit(path); // listeners see that a turn now waits on it
    return decided;
  }

  /** Answers the write waiting on `path` (Accept, Reject, or the turn withdrew it); true if one waited. */
  decide(path: string, d: Decision): boolean {
    const w = this.waiting.get(path);
    this.waiting.delete(path);
    w?.(d);
    return w !== undefined;
  }

  /** A write request is waiting on this path (an orphan from before a reload is not). */
  isWaiting(path: string): boolean {
    return this.waiting.has(path);
  }

  list(): PendingEdit[] {
    return [...this.edits.values()];
  }

  onChange(l: Listener): { dispose(): void } {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  }

  private emit(path: string): void {
    for (const l of this.listeners) l(path);
  }
}
