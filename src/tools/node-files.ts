// ferret's own file system access, for clients that do not offer their editor's buffers.
// A path reaches here already resolved to its real path and checked by the sandbox (the tool
// runner's placePaths). Between that check and the open, another session's command can swap a
// folder for a symlink, so nothing here trusts the name again:
// - the last component is opened with O_NOFOLLOW, and the opened descriptor's real path (from
//   /proc/self/fd) must be the checked path, or the call fails;
// - only regular files are read or replaced, opened non-blocking: a FIFO or a device is refused
//   at once instead of hanging a libuv thread;
// - a write goes to a new temporary file in the same (verified) folder and is renamed over the
//   target, so a hard link to a file outside (a pnpm store) is replaced, never written through;
// - reads and writes stop on cancel.
import { constants, type Stats, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { imageTypeOf, MAX_IMAGE_BYTES, sizeText, type Image } from '../protocol/index.js';
import type { FileAccess } from './define.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;

/** Bytes one read may take; larger files are read with bash (head, tail, sed -n). */
export const MAX_READ_BYTES = 24 * 1024 * 1024;
/**
 * Characters edit_file and write_file handle (old and new text): both travel whole in the
 * file_edit event, its log line and every client's copy, and turning a few megabytes into JSON
 * holds every session's event loop. Larger files are changed with bash.
 */
export const MAX_EDIT_CHARS = 2 * 1024 * 1024;
const CHUNK = 1024 * 1024;
const DECODE_SLICE = 1024 * 1024;

class FileError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symlink';
  return 'not a regular file';
}

/** Where an open descriptor really is; undefined when /proc is not there to say. */
async function pathOfFd(fd: number): Promise<string | undefined> {
  try {
    return await fsp.readlink(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function swapped(p: string, now: string): FileError {
  return new FileError(`${p} changed while ferret was using it (it now leads to ${now}); refusing to follow it`, 'ESWAPPED');
}

/** Opens p itself (never a symlink in its place) and proves the descriptor is the checked path. */
async function openExact(p: string, flags: number, mode?: number): Promise<FileHandle> {
  let fh: FileHandle;
  try {
    fh = await fsp.open(p, flags | O_NOFOLLOW | O_NONBLOCK, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new FileError(`${p} is a symlink that appeared after it was checked; refusing to follow it`, 'ELOOP');
    throw err;
  }
  try {
    const at = (await pathOfFd(fh.fd)) ?? (await fsp.realpath(p));
    if (at !== p) throw swapped(p, at);
    return fh;
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** UTF-8 text of buf, decoded a slice at a time with a yield between, so a file of several MB never
 * holds the event loop for one long synchronous decode (a loaded machine took >100 ms for 8 MB). */
async function decodeInSlices(buf: Buffer): Promise<string> {
  if (buf.length <= DECODE_SLICE) return buf.toString('utf8');
  const decoder = new StringDecoder('utf8');
  const parts: string[] = [];
  for (let at = 0; at < buf.length; at += DECODE_SLICE) {
    parts.push(decoder.write(buf.subarray(at, at + DECODE_SLICE)));
    await new Promise((r) => setImmediate(r));
  }
  parts.push(decoder.end());
  return parts.join('');
}

async function readText(p: string, signal?: AbortSignal): Promise<string> {
  signal?.throwIfAborted();
  const fh = await openExact(p, O_RDONLY);
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new FileError(`${p} is a folder (use list_dir)`, 'EISDIR');
    if (!st.isFile()) throw new FileError(`${p} is ${kindOf(st)}, not a regular file; only regular files are read`, 'ENOTREG');
    if (st.size > MAX_READ_BYTES) {
      throw new FileError(`${p} is ${st.size} bytes, more than the ${MAX_READ_BYTES} a file tool reads; read parts of it with bash (head, tail, sed -n)`, 'EFBIG');
    }
    const buf = Buffer.allocUnsafe(st.size); // only the bytes read are decoded
    let got = 0;
    while (got < buf.length) {
      signal?.throwIfAborted();
      const { bytesRead } = await fh.read(buf, got, Math.min(CHUNK, buf.length - got), got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return await decodeInSlices(buf.subarray(0, got));
  } finally {
    await fh.close();
  }
}

/** What readImage found: a picture (base64), one too large to hand over, or not a picture at all. */
export type ImageRead = { image: Image; bytes: number } | { tooLarge: string } | undefined;

/**
 * The file as an image when its first bytes say it is a PNG, JPEG, GIF or WebP (whatever its
 * name), read with the same care as readText; undefined when it is not one, or cannot be opened
 * here (read_file then reads it as text, and says why that fails).
 */
export async function readImage(p: string, signal?: AbortSignal): Promise<ImageRead> {
  signal?.throwIfAborted();
  let fh: FileHandle;
  try {
    fh = await openExact(p, O_RDONLY);
  } catch {
    return undefined;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return undefined;
    const head = Buffer.alloc(16);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const type = imageTypeOf(head.subarray(0, bytesRead));
    if (!type) return undefined;
    if (st.size > MAX_IMAGE_BYTES) return { tooLarge: `${p} is a ${sizeText(st.size)} ${type} image, more than the ${sizeText(MAX_IMAGE_BYTES)} ferret hands a model` };
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      signal?.throwIfAborted();
      const r = await fh.read(buf, got, buf.length - got, got);
      if (r.bytesRead === 0) break;
      got += r.bytesRead;
    }
    return { image: { mimeType: type, data: buf.toString('base64', 0, got), name: basename(p) }, bytes: got };
  } finally {
    await fh.close();
  }
}

/**
 * Creates the missing folders of `dir` one at a time (never `mkdir -p` through a symlink that
 * appeared since the check), then proves `dir` is still where it was checked. Undoes what it made
 * when it is not.
 */
async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let cur = dir; ; cur = dirname(cur)) {
    const st = await fsp.lstat(cur).catch(() => undefined);
    if (st) break;
    missing.unshift(cur);
    if (dirname(cur) === cur) break;
  }
  const made: string[] = [];
  try {
    for (const d of missing) {
      try {
        await fsp.mkdir(d);
        made.push(d);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const st = await fsp.lstat(d);
      if (!st.isDirectory()) throw new FileError(`${d} is ${kindOf(st)}, not a folder`, 'ENOTDIR');
    }
    const real = await fsp.realpath(dir);
    if (real !== dir) throw swapped(dir, real);
  } catch (err) {
    for (const d of made.reverse()) await fsp.rmdir(d).catch(() => undefined);
    throw err;
  }
}

async function writeText(p: string, content: string, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const dir = dirname(p);
  await ensureDir(dir);
  const old = await fsp.lstat(p).catch(() => undefined);
  if (old && !old.isFile()) throw new FileError(`${p} is ${kindOf(old)}, not a regular file; not replacing it`, old.isDirectory() ? 'EISDIR' : 'ENOTREG');
  const tmp = join(dir, `.${basename(p)}.ferret-${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}.tmp`);
  // A new file gets the umask's permissions; a replaced one keeps its own (a script stays executable).
  const fh = await openExact(tmp, O_WRONLY | O_CREAT | O_EXCL, old ? 0o600 : 0o666);
  let madeAt = tmp;
  try {
    madeAt = (await pathOfFd(fh.fd)) ?? tmp;
    const data = Buffer.from(content, 'utf8');
    for (let off = 0; off < data.length; ) {
      signal?.throwIfAborted();
      const { bytesWritten } = await fh.write(data, off, Math.min(CHUNK, data.length - off), off);
      off += bytesWritten;
    }
    if (old) await fh.chmod(old.mode & 0o7777);
    await fh.close();
    signal?.throwIfAborted();
    // The folder is proved again right before the rename: the temporary file anchors it.
    const real = await fsp.realpath(dir);
    if (real !== dir) throw swapped(dir, real);
    await fsp.rename(tmp, p);
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fsp.unlink(madeAt).catch(() => undefined);
    throw err;
  }
}

/**
 * Removes the regular file at p (apply_patch's delete and move). Like a write, it never follows
 * a swap: p itself is opened with O_NOFOLLOW and its descriptor proved to be the checked path,
 * the folder is proved right before the unlink, and the name must still be that same file
 * (device and inode) when it goes; a symlink, a folder, a FIFO or a device in its place is refused.
 */
export async function removeFile(p: string, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const dir = dirname(p);
  const fh = await openExact(p, O_RDONLY);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new FileError(`${p} is ${kindOf(st)}, not a regular file; not removing it`, st.isDirectory() ? 'EISDIR' : 'ENOTREG');
    const real = await fsp.realpath(dir);
    if (real !== dir) throw swapped(dir, real);
    const now = await fsp.lstat(p);
    if (now.ino !== st.ino || now.dev !== st.dev) throw new FileError(`${p} changed while ferret was using it; not removing it`, 'ESWAPPED');
    await fsp.unlink(p);
  } finally {
    await fh.close();
  }
}

/** ferret's own file system, for clients that do not offer their editor's buffers. */
export const nodeFiles: FileAccess = { readText, writeText };
