import { mkdir, readdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// A result longer than the output cap reaches the model cut; its whole text is kept here, in the
// session's own folder of kept output, so the model can page through it with read_file (the one
// part of ferret's state a tool may read: tool-runner.ts passes the folder to the sandbox's check).

/** Bytes of one result kept in its file; the rest is dropped (and the note says so). */
export const KEPT_FILE_MAX = 4 * 1024 * 1024;
/** What one session's folder holds at most: the oldest files go first. */
export const KEPT_DIR_MAX = 32 * 1024 * 1024;
export const KEPT_DIR_FILES = 64;

export interface KeptOutput {
  path: string;
  /** Bytes of the whole result. */
  bytes: number;
  /** Bytes in the file (less than `bytes` when the result was longer than KEPT_FILE_MAX). */
  keptBytes: number;
  /** Lines in the file, as read_file counts them. */
  lines: number;
}

/** Writes `output` (its first KEPT_FILE_MAX bytes) to a new file in `dir`, then trims the folder to its budget. */
export async function keepFullOutput(dir: string, name: string, output: string): Promise<KeptOutput> {
  const all = Buffer.from(output, 'utf8');
  const kept = all.length > KEPT_FILE_MAX ? all.subarray(0, KEPT_FILE_MAX) : all;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${safeName(name)}.txt`);
  await writeFile(path, kept, { mode: 0o600 });
  await trimFolder(dir, path);
  return { path, bytes: all.length, keptBytes: kept.length, lines: countLines(kept) };
}

/** The sentence that ends the cap's note: where the whole result is, and how to read it. */
export function keptNote(k: KeptOutput, capBytes: number, shownHead: string): string {
  const avgLine = Math.max(1, k.keptBytes / Math.max(1, k.lines));
  // A page that fits under the cap (read_file reads at most 2,000 lines at a time).
  const limit = Math.max(1, Math.min(2000, Math.floor((capBytes * 0.8) / avgLine)));
  const next = Math.min(k.lines, countLines(Buffer.from(shownHead, 'utf8')));
  const dropped = k.keptBytes < k.bytes ? ` (its first ${k.keptBytes} bytes; the rest was dropped)` : '';
  return (
    `the whole output (${k.lines} lines) is kept in ${k.path}${dropped}: page through it with read_file, ` +
    `e.g. {"path": "${k.path}", "offset": ${next}, "limit": ${limit}} (offset and limit count lines)`
  );
}

/** Lines as read_file counts them (`split('\n')`). */
function countLines(b: Buffer): number {
  let n = 1;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
  return n;
}

/** A file name from a turn and call id (a model may send any text as an id). */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 120) || 'output';
}

/** Removes the oldest files beyond the folder's budget (never `keep`, the one just written). */
async function trimFolder(dir: string, keep: string): Promise<void> {
  const names = await readdir(dir);
  const files = (
    await Promise.all(
      names.map(async (n) => {
        const p = join(dir, n);
        const st = await stat(p).catch(() => undefined);
        return st?.isFile() ? { p, size: st.size, at: st.mtimeMs } : undefined;
      }),
    )
  ).filter((f) => f !== undefined);
  files.sort((a, b) => (a.p === keep ? -1 : b.p === keep ? 1 : b.at - a.at));
  let total = 0;
  for (const [i, f] of files.entries()) {
    total += f.size;
    if (f.p !== keep && (total > KEPT_DIR_MAX || i >= KEPT_DIR_FILES)) await unlink(f.p).catch(() => undefined);
  }
}
