// What the workspace guard knows of a tree between commands: each folder it has read, with the
// folder's identity and change time when read, its subfolders and its `.git` entries. A refresh
// lstats every known folder and reads again only those whose ctime moved, so a command in a
// 100,000-file repository costs a few thousand lstats, not a few thousand listings.
// Why ctime and not mtime: a command can set a folder's mtime back (`touch -d`), never its ctime
// (only the clock can, and the sandbox has no CAP_SYS_TIME). A folder changed in the same clock
// tick as it was read would keep its ctime: such a folder is "racy" (git's word for the same
// problem in its index) and read again at every refresh until its ctime is safely older.
//
// With a folder watch (folder-watch.ts), most folders are not even lstat-ed: a folder is
// *trusted* once an inotify watch sits on exactly the folder the index read (same device and
// inode) and its ctime has not moved between that read and the watch. A trusted folder is read
// again only when its watch reports an event; every other folder is checked as above. A folder
// can only move by a change in its parent (an event there, or a parent that is itself checked),
// so when a parent is read again its known subfolders' identities are checked too. When events
// may have been lost (see folder-watch.ts), a refresh checks every folder as if none were trusted.
import { lstatSync, readdirSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { FolderWatch, Flushed } from './folder-watch.js';
import { lstatOrUndefined } from './real-path.js';

/** A ctime this close to the moment the folder was read may hide a later change in the same tick (coarse clocks: 1–2 s on some file systems). */
const RACY_MS = 2500;
/**
 * The same where the file system keeps sub-millisecond times (ext4, xfs, btrfs, tmpfs): there a
 * ctime is the kernel's coarse clock, at most a scheduler tick (≤ 10 ms) behind the time read.
 */
const RACY_FINE_MS = 100;

interface Folder {
  /** Identity when read. */
  dev: number;
  ino: number;
  ctimeMs: number;
  readAt: number;
  subdirs: string[];
  /** `.git` entries directly in this folder: path → dev:ino. */
  git: Map<string, string>;
  /** A watch sits on this very folder and nothing changed since it was read: skipped unless the watch reports. */
  trusted: boolean;
  /** The folder cannot be watched (budget spent, no /proc): checked by lstat at every refresh. */
  unwatched?: boolean;
}

export interface IndexOptions {
  /** Folder names never entered (node_modules). */
  skipNames: ReadonlySet<string>;
  /** Absolute folders never entered (ferret's state). */
  skipPaths: ReadonlySet<string>;
  /** At most this many folders are held (breadth first). */
  maxDirs: number;
  /** The process's folder watch; without it every refresh lstats every folder. */
  watch?: FolderWatch | undefined;
  /** Keep `touched` and `gone` (the checkpoints' change journal); the guard needs neither. */
  track?: boolean;
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
  /** Folders lstat-ed by the latest refresh. */
  checks = 0;
  /** Whether the latest refresh could rely on the watch (no events possibly lost). */
  watched = false;
  /**
   * With `track`: the folders whose own entries may have changed since the refresh before (an
   * event on the folder, a new listing, or a folder no watch vouched for over the whole time:
   * ctime does not move when a file's contents do), and the folders that went. A folder not in
   * either, in a refresh that was `watched` and not `partial`, had no change of any entry.
   */
  touched = new Set<string>();
  gone = new Set<string>();
  private readonly id: number | undefined;
  /** Folders to watch, and watches to close, at the next flush. */
  private readonly toWatch = new Set<string>();
  private readonly toClose = new Set<string>();
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    readonly root: string,
    private readonly opts: IndexOptions,
  ) {
    this.id = opts.watch?.register();
    // An index dropped with its workspace's facts (the table keeps 64) closes its watches when
    // it is collected: never earlier, since a session may still hold those facts and use it.
    if (opts.watch && this.id !== undefined) released.register(this, { watch: opts.watch, id: this.id });
  }

  /** Closes this index's watches (it is being replaced). */
  dispose(): void {
    if (this.id !== undefined) this.opts.watch?.dispose(this.id);
  }

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
   * Brings the index up to date: the folders the watch reports and every untrusted folder are
   * lstat-ed, the changed, racy and new ones are read. `pause` is awaited between steps when it
   * says so (the caller's event-loop slices).
   */
  async refresh(pause: () => Promise<void> | undefined): Promise<void> {
    // One refresh at a time: a second one running between another's flush and its reads would
    // take an empty "changed" list and skip folders the first has yet to read.
    const turn = this.running.then(() => this.refreshNow(pause));
    this.running = turn.catch(() => undefined);
    return turn;
  }

  private async refreshNow(pause: () => Promise<void> | undefined): Promise<void> {
    this.reads = 0;
    this.checks = 0;
    this.partial = false;
    this.watched = false;
    const track = this.opts.track === true;
    this.touched = new Set();
    this.gone = new Set();
    // A folder trusted only from this flush on had no watch for part of the time since the last refresh.
    const trustedBefore = new Set<string>();
    if (track) for (const [dir, f] of this.folders) if (f.trusted) trustedBefore.add(dir);
    const queue: string[] = [];
    let rootForNames = false;
    if (this.folders.size === 0) {
      queue.push(this.root);
      // The root went (or this is the first refresh): the watches of what was known are closed.
      if (this.toClose.size > 0) await this.flush();
    } else {
      const news = await this.flush();
      const suspect = !news || news.suspect;
      this.watched = !suspect;
      const dirty = new Set(news?.dirty);
      // Deleting while iterating a Map is safe: a dropped folder is not visited.
      for (const [dir, f] of this.folders) {
        if (track && (dirty.has(dir) || !trustedBefore.has(dir) || suspect)) this.touched.add(dir);
        if (f.trusted && !suspect && !dirty.has(dir) && dir !== this.root) continue;
        this.checks++;
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
        if (!f.trusted && !f.unwatched && this.id !== undefined) this.toWatch.add(dir);
        const moved = dirty.has(dir) || st.ctimeMs !== f.ctimeMs || isRacy(f);
        // The root is read every time for its names; that alone is no change.
        if (dir === this.root && !moved) rootForNames = true;
        if (moved || dir === this.root) queue.push(dir);
        const p = pause();
        if (p) await p;
      }
    }
    for (let i = 0; i < queue.length; i++) {
      const dir = queue[i]!;
      if (track && !(dir === this.root && rootForNames)) this.touched.add(dir);
      const fresh = this.read(dir);
      if (fresh) queue.push(...fresh);
      const p = pause();
      if (p) await p;
    }
  }

  /**
   * Hands the watch what to add and close, and takes what it saw. A folder the watch now sits on
   * becomes trusted when the watch's own look at it matches what the index read: same folder, same
   * ctime, and that ctime not racy (so no change hid between the read and the watch).
   */
  private async flush(): Promise<Flushed | undefined> {
    if (this.id === undefined || !this.opts.watch) return undefined;
    const add = [...this.toWatch];
    const close = [...this.toClose];
    this.toWatch.clear();
    this.toClose.clear();
    const news = await this.opts.watch.flush(this.id, add, close);
    if (!news) {
      // No watch, or it restarted: nothing is known to be watched any more.
      for (const f of this.folders.values()) f.trusted = false;
      return undefined;
    }
    // Events may be lost, or the worker restarted (its watches gone): nothing is vouched for
    // until its watch is added again and checked against what was read.
    if (news.suspect) for (const f of this.folders.values()) f.trusted = false;
    for (const a of news.added) {
      const f = this.folders.get(a.path);
      if (f && f.dev === a.dev && f.ino === a.ino && f.ctimeMs === a.ctimeMs && !isRacy(f)) f.trusted = true;
    }
    for (const p of news.failed) {
      const f = this.folders.get(p);
      if (f) f.unwatched = true;
    }
    return news;
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
    const same = known !== undefined && known.dev === st.dev && known.ino === st.ino;
    if (known && !same) {
      // Another folder now stands at this path: what was known below it is not below it now.
      this.drop(dir);
    }
    const before = new Set(same ? known.subdirs : []);
    const now = new Set(subdirs);
    for (const s of before) if (!now.has(s)) this.drop(s);
    // A trusted subfolder is not lstat-ed by refresh: this listing changed, so one may have been
    // swapped for another under the same name.
    for (const s of before) {
      const f = now.has(s) ? this.folders.get(s) : undefined;
      if (!f?.trusted) continue;
      const cs = lstatOrUndefined(s);
      if (!cs?.isDirectory() || cs.ino !== f.ino || cs.dev !== f.dev) this.drop(s);
    }
    const trusted = same && known.trusted;
    const folder: Folder = { dev: st.dev, ino: st.ino, ctimeMs: st.ctimeMs, readAt, subdirs, git, trusted };
    if (same && known.unwatched) folder.unwatched = true;
    this.folders.set(dir, folder);
    if (!trusted && !folder.unwatched && this.id !== undefined) this.toWatch.add(dir);
    return subdirs.filter((s) => !before.has(s) || !this.folders.has(s));
  }

  /** Forgets a folder and everything known below it. */
  private drop(dir: string): void {
    const f = this.folders.get(dir);
    if (!f) return;
    this.folders.delete(dir);
    this.toWatch.delete(dir);
    if (this.opts.track) this.gone.add(dir);
    if (this.id !== undefined) this.toClose.add(dir);
    for (const s of f.subdirs) this.drop(s);
  }
}

const released = new FinalizationRegistry<{ watch: FolderWatch; id: number }>(({ watch, id }) => watch.dispose(id));

function isRacy(f: Folder): boolean {
  // A ctime with a fraction of a millisecond comes from a file system with fine times; a whole
  // one (almost always a coarse file system) takes the long window.
  return f.ctimeMs >= f.readAt - (f.ctimeMs % 1 !== 0 ? RACY_FINE_MS : RACY_MS);
}
