import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive as alive } from '../util/process-alive.js';

/**
 * One writer per session log across processes: a `lock` file holding the owner's pid, made
 * with O_EXCL. A lock whose process is gone (a crash, kill -9) is taken over. Returns the
 * release function, or the pid of the live owner.
 */
export function lockSession(dir: string): { release: () => void } | { owner: number } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => rmSync(file, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(file, 'utf8').trim());
      if (owner === process.pid) return { release: () => rmSync(file, { force: true }) };
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) return { owner };
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  return { owner: -1 };
}
