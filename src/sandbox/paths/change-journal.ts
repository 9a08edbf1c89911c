// Which folders of a workspace changed since the last look: the checkpoints ask it before each
// snapshot, so a snapshot lists only those folders instead of the whole tree. It is a folder
// index (dir-index.ts) of its own with the process's folder watch; dir-index.ts and
// docs/security.md ("The folder watch") say when a watch vouches for a folder and what it cannot
// see. The answer errs one way only: a folder it is not sure of is reported as changed.
import { relative } from 'node:path';
import { DirIndex } from './dir-index.js';
import { folderWatch } from './folder-watch.js';
import { slicer } from './slices.js';

/** Folders held at most; a bigger tree is never complete, and its snapshots list it whole. */
const MAX_DIRS = 20_000;
const SLICE_MS = 8;

export interface WorkspaceChanges {
  /** False when the answer covers less than the tree (budget, unreadable folder, events possibly lost): list it whole. */
  complete: boolean;
  /** Folders (relative; '' is the root) whose own entries may have changed: a file added, removed, renamed or written. */
  changed: string[];
  /** Folders (relative) that went, with everything that was below them. */
  gone: string[];
}

export class ChangeJournal {
  private readonly index: DirIndex;

  constructor(
    readonly root: string,
    /** Folder names never entered (their contents are never recorded either). */
    skipNames: ReadonlySet<string>,
    /** Absolute folders never entered. */
    skipPaths: readonly string[],
  ) {
    this.index = new DirIndex(root, { skipNames, skipPaths: new Set(skipPaths), maxDirs: MAX_DIRS, watch: folderWatch(), track: true });
  }

  /** What changed since the previous call (the first call reports every folder). */
  async changes(): Promise<WorkspaceChanges> {
    const { pause } = slicer(SLICE_MS);
    await this.index.refresh(pause);
    const rel = (p: string): string => relative(this.root, p);
    return { complete: this.index.watched && !this.index.partial, changed: [...this.index.touched].map(rel), gone: [...this.index.gone].map(rel) };
  }

  dispose(): void {
    this.index.dispose();
  }
}
