// Finding every `.git` in a workspace: the command sandbox binds each read-only, and the file
// tools look up nested repositories' pointers (a `gitdir:` target, a core.hooksPath folder
// outside the repository) through the most recent scan.
import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import type { GitScan, WorkspaceFacts } from '../facts.js';
import { lstatOrUndefined } from './real-path.js';
import { stateBlocks } from './state-roots.js';
import { DirIndex } from './dir-index.js';
import { folderWatch } from './folder-watch.js';
import { slicer } from './slices.js';

/** Folders the scan does not enter: package trees are large and git never runs inside them on its own. */
export const SCAN_SKIP = new Set(['node_modules']);
/** At most this many folders are read per scan (breadth first, so shallow repositories come first). */
export const SCAN_MAX_DIRS = 10_000;
/** A file tool's own scan, when no recent one exists, reads at most this many (it runs synchronously). */
export const SYNC_SCAN_MAX_DIRS = 400;
/** A scan younger than this answers the file tools' questions. */
const FRESH_MS = 5000;
/** The scan yields to the event loop after this long. */
const SLICE_MS = 8;

export type { GitScan } from '../facts.js';

class Walk {
  readonly git = new Map<string, string>();
  rootNames: Set<string> | undefined;
  /** A folder could not be read: the scan is not complete. */
  private unread = false;
  private readonly queue: string[];
  private readonly skip: Set<string>;
  private i = 0;
  readonly ws: string;
  constructor(readonly facts: WorkspaceFacts) {
    this.ws = facts.workspace;
    this.queue = [this.ws];
    this.skip = new Set(stateBlocks(facts));
  }
  get done(): boolean {
    return this.i >= this.queue.length;
  }
  get read(): number {
    return this.i;
  }
  step(): void {
    const dir = this.queue[this.i++]!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      // Gone meanwhile is nothing missed; any other failure (EMFILE, EACCES) left a folder unread.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.unread = true;
      return;
    }
    if (dir === this.ws) this.rootNames = rootListing(entries.map((e) => e.name));
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.name.toLowerCase() === '.git') {
        const st = lstatOrUndefined(p);
        if (st) this.git.set(p, `${st.dev}:${st.ino}`);
      } else if (e.isDirectory() && !SCAN_SKIP.has(e.name) && !this.skip.has(p)) {
        this.queue.push(p);
      }
    }
  }
  result(): GitScan {
    const scan: GitScan = { workspace: this.ws, git: this.git, complete: this.done && !this.unread, at: Date.now() };
    if (this.rootNames) scan.rootNames = this.rootNames;
    this.facts.gitScan = scan;
    return scan;
  }
}

/**
 * A folder's entry names, lower-cased, to answer "is a protected name there?" without an lstat
 * per name. Undefined when a name is not plain ASCII: a case-folding file system (ext4's
 * `chattr +F`, ZFS) folds `ſ`, `ß` or `ﬁ` in ways toLowerCase() does not, so `.vſcode` may be
 * the `.vscode` an editor opens; then each name is looked up by lstat.
 */
export function rootListing(names: readonly string[]): Set<string> | undefined {
  const out = new Set<string>();
  for (const n of names) {
    if (!/^[\x20-\x7e]*$/.test(n)) return undefined;
    out.add(n.toLowerCase());
  }
  return out;
}

/** The workspace's own entry names as rootListing gives them, read now. */
export function listRoot(ws: string): Set<string> | undefined {
  try {
    return rootListing(readdirSync(ws));
  } catch {
    return undefined;
  }
}

/**
 * Every `.git` in the workspace (bounded, skipping SCAN_SKIP), yielding to the event loop as it
 * goes. The first call reads the tree; later ones refresh the workspace's folder index
 * (dir-index.ts): the folders a watch reports, or an lstat per folder the watch does not vouch
 * for, and a listing only where something changed.
 */
export async function scanGit(facts: WorkspaceFacts, maxDirs = SCAN_MAX_DIRS): Promise<GitScan> {
  const skip = stateBlocks(facts);
  const key = `${maxDirs}\0${skip.join('\0')}`;
  if (!facts.dirIndex || facts.dirIndex.key !== key) {
    facts.dirIndex?.index.dispose();
    const watch = folderWatch();
    facts.dirIndex = { key, index: new DirIndex(facts.workspace, { skipNames: SCAN_SKIP, skipPaths: new Set(skip), maxDirs, watch }) };
  }
  const index = facts.dirIndex.index;
  const { pause, yielded } = slicer(SLICE_MS);
  await index.refresh(pause);
  const scan: GitScan = { workspace: facts.workspace, git: index.gitEntries(), complete: !index.partial, at: Date.now() };
  const names = index.rootNames ? rootListing(index.rootNames) : undefined;
  if (names) scan.rootNames = names;
  if (yielded()) scan.yielded = true;
  facts.gitScan = scan;
  return scan;
}

/** The workspace's nested `.git` entries from a recent scan, else from a small synchronous one. */
export function recentGit(facts: WorkspaceFacts): GitScan {
  const r = facts.gitScan;
  if (r && Date.now() - r.at < FRESH_MS) return r;
  const w = new Walk(facts);
  while (!w.done && w.read < SYNC_SCAN_MAX_DIRS) w.step();
  return w.result();
}
