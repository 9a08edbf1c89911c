// Reading an ignore file (or git's config) that anyone who can write the workspace controls. A
// FIFO named `.gitignore` would block a plain readFile forever (holding a libuv thread, or the
// whole event loop for a sync read), so the file is opened non-blocking and read only when the
// open descriptor is a regular file of a sane size; anything else counts as absent.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { readSmallFileSync } from '../../sandbox/index.js';

const { O_RDONLY, O_NONBLOCK } = constants;

/** The file's text, or undefined when it is missing, not a regular file, or larger than `maxBytes`. */
export async function readRegularText(file: string, maxBytes: number): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(file, O_RDONLY | O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > maxBytes) return undefined;
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return buf.toString('utf8', 0, got);
  } catch {
    return undefined;
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/** The same, synchronously (git's config, read once when the global excludes are looked up). */
export function readRegularTextSync(file: string, maxBytes: number): string | undefined {
  return readSmallFileSync(file, maxBytes, true);
}
