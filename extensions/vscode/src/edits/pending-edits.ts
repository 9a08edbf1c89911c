// Edits the agent wrote through `fs/write_text_file`, held until the person accepts or rejects
// them. Nothing here touches the disk: the write request is answered at once (ferret puts a
// deadline on it), and only Accept writes. Pure: the VS Code side listens to `onChange`.

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

export class PendingEdits {
  private readonly edits = new Map<string, PendingEdit>();
  private readonly listeners = new Set<Listener>();

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
