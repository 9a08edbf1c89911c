import { closeSync, openSync, readFileSync } from 'node:fs';

/**
 * Open files shared by every session log of the process, at most `max` at once: the least
 * recently used is closed to open another, and reopened when it is written again. However many
 * sessions are live, their logs hold at most `max` descriptors (a log opens with O_APPEND, so a
 * reopen writes where the last write ended).
 */
export class FdPool {
  private readonly open = new Map<string, number>(); // insertion order: least recently used first

  constructor(private max: number) {}

  /** The descriptor for `path` (opened for appending, made owner-only when new). */
  fd(path: string): number {
    const have = this.open.get(path);
    if (have !== undefined) {
      this.open.delete(path);
      this.open.set(path, have);
      return have;
    }
    while (this.open.size >= this.max) this.closeOldest();
    let fd: number;
    try {
      fd = openSync(path, 'a', 0o600);
    } catch (err) {
      // Out of descriptors elsewhere in the process (sockets, children): give back half of ours once.
      if ((err as NodeJS.ErrnoException).code !== 'EMFILE' || this.open.size === 0) throw err;
      for (let n = Math.ceil(this.open.size / 2); n > 0; n--) this.closeOldest();
      fd = openSync(path, 'a', 0o600);
    }
    this.open.set(path, fd);
    return fd;
  }

  /** Closes `path` if it is open (a log that closes, or a file about to be truncated). */
  release(path: string): void {
    const fd = this.open.get(path);
    if (fd === undefined) return;
    this.open.delete(path);
    closeSync(fd);
  }

  get size(): number {
    return this.open.size;
  }

  setMax(max: number): void {
    this.max = Math.max(1, max);
    while (this.open.size > this.max) this.closeOldest();
  }

  private closeOldest(): void {
    const first = this.open.entries().next();
    if (first.done) return;
    const [path, fd] = first.value;
    this.open.delete(path);
    try {
      closeSync(fd);
    } catch {
      /* already gone */
    }
  }
}

/**
 * The process's pool: a quarter of the process's open-file limit (64 to 1024), so sockets, child
 * pipes and everything else keep the rest; createCore's maxOpenLogs (FERRET_MAX_OPEN_LOGS) sets it.
 */
export const logFds = new FdPool(Math.min(1024, Math.max(64, Math.floor(openFileLimit() / 4))));

/** The soft RLIMIT_NOFILE (Linux: /proc/self/limits; elsewhere a common default). */
function openFileLimit(): number {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    /* not Linux */
  }
  return 1024;
}
