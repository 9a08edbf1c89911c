import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileAccess } from './define.js';

/** ferret's own file system, for clients that do not offer their editor's buffers. */
export const nodeFiles: FileAccess = {
  readText: (p, signal) => readFile(p, { encoding: 'utf8', ...(signal ? { signal } : {}) }),
  async writeText(p, content, signal) {
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, content, signal ? { signal } : {});
  },
};
