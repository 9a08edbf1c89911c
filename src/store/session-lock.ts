import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, watch, writeFileSync, writeSync } from 'node:fs';
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

/**
 * A second process asks the holder of a session to hand it over: a file in the session's `ask/`
 * folder (its own folder, so the holder's watch never wakes for the log's writes). The holder lets
 * go once the session is idle (no turn, no question waiting); the asker then takes the lock.
 */
export function askHandoff(dir: string): () => void {
  const folder = join(dir, 'ask');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = join(folder, 'handoff');
  writeFileSync(file, String(process.pid), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** The holder's side: `onAsked` runs when another process asks for the session (and at once if one already waits). */
export function watchHandoff(dir: string, onAsked: () => void): () => void {
  const folder = join(dir, 'ask');
  const file = join(folder, 'handoff');
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const w = watch(folder, (_kind, name) => {
      if (name === 'handoff' && existsSync(file)) onAsked();
    });
    w.on('error', () => w.close());
    w.unref();
    return () => w.close();
  } catch {
    return () => {}; // no watch (an odd file system): a second process then waits and reports the holder
  }
}
