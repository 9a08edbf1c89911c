// The workspace guard's folder watch: inotify watches on the folders a DirIndex holds, kept by a
// worker thread, so a refresh asks "which folders changed since last time?" instead of lstat-ing
// every one of them (dir-index.ts says how the index uses the answer).
//
// Why a worker: it owns its own libuv loop and so its own inotify queue, holding only these
// watches. That makes two things exact that are not on the main thread:
// - **Ordering.** A flush renames a sentinel file in the worker's private folder to a fresh random
//   name and answers when that event arrives: inotify's queue is first in, first out, so every
//   change made before the flush began has been seen by then.
// - **Lost events.** libuv drops inotify's queue-overflow notice without a word. An overflow can
//   only happen once `max_queued_events` events were queued, and the worker reads every one of
//   them; so it counts events, and a refresh that saw half that many since its last flush
//   distrusts the watches and lstat-s every folder instead (`suspect`).
// Watches are added through `/proc/self/fd/N` of a folder opened with O_NOFOLLOW, so each is on
// exactly the folder whose identity it reports, not on whatever a path names a moment later.
import { readFileSync, rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** One watch the worker added: the folder's identity and change time read after the watch was in place. */
export interface Added {
  path: string;
  dev: number;
  ino: number;
  ctimeMs: number;
}

export interface Flushed {
  /** Folders with an event since this index's previous flush. */
  dirty: string[];
  added: Added[];
  /** Folders that are there but cannot be watched (the watch budget is spent, no /proc, EACCES): not asked again. */
  failed: string[];
  /** Events may have been lost (or this is the index's first flush, or the worker restarted). */
  suspect: boolean;
}

// Plain JS, run with { eval: true }: nothing of ours imported, nothing a bundler rewrites.
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const crypto = require('node:crypto');
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
const watches = new Map(); // index + '\0' + path -> FSWatcher
const dirty = new Map(); // index -> Set of paths
let total = 0;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferret-watch-'));
let cur = path.join(dir, crypto.randomBytes(12).toString('hex'));
fs.writeFileSync(cur, '');
parentPort.postMessage({ dir }); // the process removes it when it exits: a worker is ended without its own 'exit'
let expect;
let inflight = [];
const waiting = [];
fs.watch(dir, (_ev, name) => {
  total++;
  if (expect !== undefined && name === expect) done();
});
const mark = (index, p) => {
  let s = dirty.get(index);
  if (!s) dirty.set(index, (s = new Set()));
  s.add(p);
};
function close(key) {
  const w = watches.get(key);
  if (!w) return;
  watches.delete(key);
  try { w.close(); } catch {}
}
function add(index, p) {
  const key = index + '\0' + p;
  close(key);
  if (watches.size >= workerData.cap) return 'full';
  let fd;
  try {
    fd = fs.openSync(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const w = fs.watch('/proc/self/fd/' + fd, () => { total++; mark(index, p); });
    w.on('error', () => { mark(index, p); close(key); });
    watches.set(key, w);
    const st = fs.fstatSync(fd); // after the watch: what it started from, or newer
    return { path: p, dev: st.dev, ino: st.ino, ctimeMs: st.ctimeMs };
  } catch (e) {
    close(key);
    const code = e && e.code;
    return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' ? 'gone' : 'error';
  } finally {
    if (fd !== undefined) try { fs.closeSync(fd); } catch {}
  }
}
// Runs right after the sentinel's event, when the queue has just been read empty: a watch
// closed here can lose at most the events of the read batch still being dispatched.
function answer(req) {
  for (const p of req.close) close(req.index + '\0' + p);
  if (req.dispose) for (const key of [...watches.keys()]) if (key.startsWith(req.index + '\0')) close(key);
  const added = [];
  const failed = [];
  for (const p of req.add) {
    const r = add(req.index, p);
    if (typeof r === 'object') added.push(r);
    else if (r !== 'gone') failed.push(p);
  }
  const d = dirty.get(req.index);
  dirty.delete(req.index);
  parentPort.postMessage({ id: req.id, total, dirty: d ? [...d] : [], added, failed });
}
function send() {
  if (expect !== undefined || waiting.length === 0) return;
  inflight = waiting.splice(0);
  expect = crypto.randomBytes(12).toString('hex');
  const next = path.join(dir, expect);
  fs.renameSync(cur, next);
  cur = next;
}
function done() {
  expect = undefined;
  const reqs = inflight;
  inflight = [];
  for (const r of reqs) answer(r);
  send();
}
parentPort.on('message', (req) => {
  waiting.push(req);
  send();
});
`;

/** How long a flush may take before the refresh goes on without the watch (and lstats every folder). */
const FLUSH_TIMEOUT_MS = 2000;

function readNumber(file: string, fallback: number): number {
  try {
    const n = Number(readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) && n > 0 ? n : fallback;
  } catch {
    return fallback;
  }
}

interface Pending {
  resolve: (m: { total: number; dirty: string[]; added: Added[]; failed: string[] } | undefined) => void;
  timer: NodeJS.Timeout;
}

/** The process's one watch worker, shared by every workspace's index. */
export class FolderWatch {
  private worker: Worker | undefined;
  private broken = false;
  /** Bumped when the worker restarts: every watch it held is gone. */
  private epoch = 0;
  private deaths = 0;
  /** The worker's private folder (its sentinel file). */
  private dir: string | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Per index: the event count at its last flush, and the epoch it was taken in. */
  private readonly last = new Map<number, { total: number; epoch: number }>();
  private nextIndex = 1;
  readonly threshold: number;
  readonly cap: number;
  /** How long a flush may take (a test shortens it). */
  flushTimeoutMs = FLUSH_TIMEOUT_MS;

  constructor(opts: { threshold?: number; cap?: number } = {}) {
    // Half the queue: an overflow needs the whole queue read, so half is far from any miss.
    this.threshold = opts.threshold ?? Math.floor(readNumber('/proc/sys/fs/inotify/max_queued_events', 16384) / 2);
    // A quarter of the user's watches: editors and file watchers of the same user need theirs.
    this.cap = opts.cap ?? Math.min(50_000, Math.floor(readNumber('/proc/sys/fs/inotify/max_user_watches', 8192) / 4));
  }

  /** A new index's id. */
  register(): number {
    return this.nextIndex++;
  }

  private start(): Worker | undefined {
    if (this.worker || this.broken) return this.worker;
    if (process.platform !== 'linux') {
      this.broken = true;
      return undefined;
    }
    let w: Worker;
    try {
      w = new Worker(WORKER_SOURCE, { eval: true, stdout: true, stderr: true, workerData: { cap: this.cap } });
    } catch {
      this.broken = true;
      return undefined;
    }
    w.on('message', (m: { id: number; total: number; dirty: string[]; added: Added[]; failed: string[]; dir?: string }) => {
      if (m.dir !== undefined) {
        this.dir = m.dir;
        removeOnExit(m.dir);
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return; // timed out: its answer is not used (that refresh lstat-ed every folder)
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      p.resolve(m);
    });
    const gone = () => {
      if (this.worker !== w) return;
      this.worker = undefined;
      this.epoch++;
      // A worker that cannot live here (no tmp folder, no inotify) is not started over and over.
      if (++this.deaths >= 3) this.broken = true;
      for (const [id, p] of this.pending) {
        clearTimeout(p.timer);
        p.resolve(undefined);
        this.pending.delete(id);
      }
    };
    w.on('error', gone);
    w.on('exit', gone);
    // After the listeners (adding a 'message' listener refs the worker again): an idle watch
    // never keeps the process alive; a flush refs it until answered (flush below).
    w.unref();
    this.worker = w;
    return w;
  }

  /**
   * Closes `close`, adds `add`, and answers what changed in this index's folders since its last
   * flush. Undefined when there is no watch (not Linux, the worker failed or took too long).
   */
  async flush(index: number, add: string[], close: string[], dispose = false): Promise<Flushed | undefined> {
    const w = this.start();
    if (!w) return undefined;
    const epoch = this.epoch;
    const id = this.nextId++;
    w.ref(); // a command's scan waits on this answer: the process must not end meanwhile
    const m = await new Promise<Parameters<Pending['resolve']>[0]>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(undefined);
        // Its sentinel's event may be lost (dropped from a full queue): such a worker would
        // never answer again. A new one starts with no watches; every index sees the new epoch.
        this.restart(w);
      }, this.flushTimeoutMs);
      this.pending.set(id, { resolve, timer });
      w.postMessage({ id, index, add, close, dispose });
    });
    if (this.pending.size === 0) w.unref();
    if (!m || epoch !== this.epoch) {
      this.last.delete(index);
      return undefined;
    }
    const before = this.last.get(index);
    this.last.set(index, { total: m.total, epoch });
    const suspect = !before || before.epoch !== epoch || m.total - before.total >= this.threshold;
    return { dirty: m.dirty, added: m.added, failed: m.failed, suspect };
  }

  private restart(w: Worker): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    this.epoch++;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve(undefined);
      this.pending.delete(id);
    }
    void w.terminate();
  }

  /** Drops every watch of an index (it was replaced). */
  dispose(index: number): void {
    this.last.delete(index);
    if (this.worker) void this.flush(index, [], [], true);
  }

  /** Ends the worker (tests). */
  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    this.epoch++;
    if (w) await w.terminate();
    if (this.dir !== undefined) {
      rmSync(this.dir, { recursive: true, force: true });
      sentinelDirs.delete(this.dir);
    }
  }
}

const sentinelDirs = new Set<string>();

/** The worker's sentinel folder goes when the process goes (however the worker ended). */
function removeOnExit(dir: string): void {
  if (sentinelDirs.size === 0) {
    process.on('exit', () => {
      for (const d of sentinelDirs) rmSync(d, { recursive: true, force: true });
    });
  }
  sentinelDirs.add(dir);
}

let shared: FolderWatch | undefined;

/** The server's one watch. */
export function folderWatch(): FolderWatch {
  shared ??= new FolderWatch();
  return shared;
}
