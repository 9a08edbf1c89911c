import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FileAccess } from './define.js';

export const nodeFiles: FileAccess = {
  readText: (p) => readFile(p, 'utf8'),
  async writeText(p, content) {
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, content);
  },
};
