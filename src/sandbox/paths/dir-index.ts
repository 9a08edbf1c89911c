// What the workspace guard knows of a tree between commands: each folder it has read, with the
// folder's identity and change time when read, its subfolders and its `.git` entries. A refresh
// lstats every known folder and reads again only those whose ctime moved, so a command in a
// 100,000-file repository costs a few thousand lstats, not a few thousand listings.
// Why ctime and not mtime: a command can set a folder's mtime back (`touch -d`), never its ctime
// (only the clock can, and the sandbox has no CAP_SYS_TIME). A folder changed in the same clock
// tick as it was read would keep its ctime: such a folder is "racy" (git's word for the same
// problem in its index) and read again at every refresh until its ctime is safely older.
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import { lstatOrUndefined } from './real-path.js';

/** A ctime this close to the moment the folder was read may hide a later change in the same tick (coarse clocks: 1–2 s on some file systems). */
const RACY_MS = 2500;

interface Folder {
  /** Identity when read. */
  dev: number;
  ino: number;
  ctimeMs: number;
  readAt: number;
  subdirs: string[];
  /** `.git` entries directly in this folder: path → dev:ino. */
  git: Map<string, string>;
}

export interface IndexOptions {
  /** Folder names never entered (node_modules). */
  skipNames: ReadonlySet<string>;
  /** Absolute folders never entered (ferret's state). */
  skipPaths: ReadonlySet<string>;
  /** At most this many folders are held (breadth first). */
  maxDirs: number;
}

function statOf(dir: string): Stats | undefined | 'unreadable' {
  try {
    return lstatSync(dir, { throwIfNoEntry: false });
  } catch {
    return 'unreadable'; // EACCES on a parent, EMFILE: not known to be unchanged
  }
}

export class DirIndex {
  private readonly folders = new Map<string, Folder>();
  /** A folder could not be read, or the budget ran out: what the index holds is not the whole tree. */
  partial = false;
  rootNames: readonly string[] | undefined;
  /** Listings read by the latest refresh (the root's is always among them). */
  reads = 0;

  constructor(
    readonly root: string,
    private readonly opts: IndexOptions,
  ) {}

  get size(): number {
    return this.folders.size;
  }

  /** Every `.git` entry the index holds (a new map each time: a scan is a snapshot). */
  gitEntries(): Map<string, string> {
    const out = new Map<string, string>();
    for (const f of this.folders.values()) for (const [p, id] of f.git) out.set(p, id);
    return out;
  }

  /**
   * Brings the index up to date: every known folder is lstat-ed, the changed, racy and new ones
   * are read. `pause` is awaited between steps when it says so (the caller's event-loop slices).
   */
  async refresh(pause: () => Promise<void> | undefined): Promise<void> {
    this.reads = 0;
    this.partial = false;
    const queue: string[] = [];
    if (this.folders.size === 0) queue.push(this.root);
    else {
      // Deleting while iterating a Map is safe: a dropped folder is not visited.
      for (const [dir, f] of this.folders) {
        const st = statOf(dir);
        if (st === 'unreadable') {
          this.partial = true;
          continue;
        }
        if (!st || !st.isDirectory() || st.ino !== f.ino || st.dev !== f.dev) {
          this.drop(dir);
          if (dir === this.root) queue.push(dir);
          continue;
        }
        if (st.ctimeMs !== f.ctimeMs || f.ctimeMs >= f.readAt - RACY_MS || dir === this.root) queue.push(dir);
        const p = pause();
        if (p) await p;
      }
    }
    for (let i = 0; i < queue.length; i++) {
      const dir = queue[i]!;
      const fresh = this.read(dir);
      if (fresh) queue.push(...fresh);
      const p = pause();
      if (p) await p;
    }
  }

  /** Reads one folder; answers the subfolders it did not know (to be read in turn). */
  private read(dir: string): string[] | undefined {
    const known = this.folders.get(dir);
    if (!known && this.folders.size >= this.opts.maxDirs) {
      this.partial = true;
      return undefined;
    }
    const readAt = Date.now();
    const st = lstatOrUndefined(dir);
    let entries: Dirent[];
    try {
      if (!st?.isDirectory()) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      // Gone meanwhile is nothing missed; any other failure (EMFILE, EACCES) left a folder unread.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.partial = true;
      this.drop(dir);
      return undefined;
    }
    this.reads++;
    if (dir === this.root) this.rootNames = entries.map((e) => e.name);
    const git = new Map<string, string>();
    const subdirs: string[] = [];
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.name.toLowerCase() === '.git') {
        const g = lstatOrUndefined(p);
        if (g) git.set(p, `${g.dev}:${g.ino}`);
      } else if (e.isDirectory() && !this.opts.skipNames.has(e.name) && !this.opts.skipPaths.has(p)) {
        subdirs.push(p);
      }
    }
    const before = new Set(known?.subdirs);
    const now = new Set(subdirs);
    for (const s of before) if (!now.has(s)) this.drop(s);
    this.folders.set(dir, { dev: st.dev, ino: st.ino, ctimeMs: st.ctimeMs, readAt, subdirs, git });
    return subdirs.filter((s) => !before.has(s) || !this.folders.has(s));
  }

  /** Forgets a folder and everything known below it. */
  private drop(dir: string): void {
    const f = this.folders.get(dir);
    if (!f) return;
    this.folders.delete(dir);
    for (const s of f.subdirs) this.drop(s);
  }
}
