import type { promises as fsp } from 'node:fs';

// Reading a file of JSON lines a chunk at a time, each read awaited, is done alike by the file
// store's snapshot (file-store.ts) and the session index (session-index.ts): one loop for both.

/**
 * Reads `fh` from `from` up to `to` (or its end) in chunks of `chunkBytes`, and hands `take` each
 * chunk's whole lines (newlines kept) with their length in bytes; a line longer than a chunk is
 * carried into the next. Returns what is left after the last newline (a line not yet whole), if any.
 */
export async function readWholeLines(
  fh: fsp.FileHandle,
  from: number,
  to: number,
  chunkBytes: number,
  take: (text: string, bytes: number) => void | Promise<void>,
): Promise<Buffer | undefined> {
  const buf = Buffer.allocUnsafe(chunkBytes);
  let carry: Buffer | undefined; // a line longer than a chunk, read so far
  for (let pos = from; pos < to; ) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(chunkBytes, to - pos), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const got = buf.subarray(0, bytesRead);
    const nl = got.lastIndexOf(0x0a);
    if (nl < 0) {
      carry = carry ? Buffer.concat([carry, got]) : Buffer.from(got);
      continue;
    }
    const whole = carry ? Buffer.concat([carry, got.subarray(0, nl + 1)]) : got.subarray(0, nl + 1);
    carry = nl + 1 < got.length ? Buffer.from(got.subarray(nl + 1)) : undefined;
    await take(whole.toString('utf8'), whole.length);
  }
  return carry;
}
