// Where a path really leads, and small reads of files a repository controls, without ever
// blocking on them (a FIFO named `.git` or `config` must not hang the server).
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';

/**
 * The real path of p: symlinks resolved all the way, including a dangling one (its target is
 * where a write would land), and for a path that does not exist yet, its nearest existing
 * ancestor's real path joined with the rest.
 */
export function realPathOf(p: string, depth = 0): string {
  if (depth > 40) return p; // a symlink loop: judged as written, which is inside nothing real
  let cur = p;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(cur), ...rest.reverse());
    } catch {
      // realpath fails on a dangling link too: follow it by hand rather than trusting its name.
      let target: string | undefined;
      try {
        if (lstatSync(cur).isSymbolicLink()) target = resolve(dirname(cur), readlinkSync(cur));
      } catch {
        /* does not exist: go up */
      }
      if (target !== undefined) return realPathOf(resolve(target, ...rest.reverse()), depth + 1);
      const parent = dirname(cur);
      if (parent === cur) return p;
      rest.push(cur.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
      cur = parent;
    }
  }
}

/**
 * The text of a small regular file, or undefined: missing, not a regular file (a FIFO, a
 * device, a folder), a symlink (unless `follow`), or larger than `max` bytes. Opened
 * non-blocking, so a FIFO never stalls the caller.
 */
export function readSmallFileSync(p: string, max = 1 << 20, follow = false): string | undefined {
  return readOpened(p, follow, (_fd, st) => (st.size > max ? undefined : st.size));
}

/**
 * The first `maxBytes` of a regular file (links followed), or undefined: missing, not a regular
 * file, or opened somewhere `allowed` refuses. The real path is read from the open descriptor
 * (/proc/self/fd), so a link swapped between a check and the open cannot send the read elsewhere.
 * Opened non-blocking: a FIFO never stalls the caller.
 */
export function readFileHeadSync(p: string, maxBytes: number, allowed: (real: string) => boolean): string | undefined {
  return readOpened(p, true, (fd, st) => (allowed(readlinkSync(`/proc/self/fd/${fd}`)) ? Math.min(st.size, maxBytes) : undefined));
}

/** Up to `size` bytes of an open file, from its start, as UTF-8 text (fewer when it is shorter now). */
export function readFdTextSync(fd: number, size: number): string {
  const buf = Buffer.alloc(size);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.toString('utf8', 0, got);
}

/** Opens a regular file non-blocking and reads as many bytes as `take` says (undefined: none, refuse). */
function readOpened(p: string, follow: boolean, take: (fd: number, st: Stats) => number | undefined): string | undefined {
  // Most files asked for are missing (git's commondir, config.worktree, the global configs, an
  // AGENTS.md): a thrown ENOENT from open costs ~10 µs more than this look.
  try {
    if ((follow ? statSync : lstatSync)(p, { throwIfNoEntry: false }) === undefined) return undefined;
  } catch {
    return undefined;
  }
  let fd: number;
  try {
    fd = openSync(p, constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const size = st.isFile() ? take(fd, st) : undefined;
    return size === undefined ? undefined : readFdTextSync(fd, size);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * lstat that answers undefined instead of throwing. A missing path is the common answer on the
 * command path (each of ~20 protected names, twice per command), and a thrown error costs far
 * more than the system call: `throwIfNoEntry: false` answers it without one.
 */
export function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
