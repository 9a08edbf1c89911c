import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FerretError } from '../protocol/index.js';

/** A new session's workspace: `cwd` resolved against the server's, a folder that exists, its real path. */
export function resolveWorkspace(cwd: string, base: string): string {
  const abs = resolve(base, cwd);
  const dir = isDirectory(abs);
  if (dir === undefined) throw new FerretError('invalid_params', `cwd: no such directory: ${abs}`, { field: 'cwd' });
  if (!dir) throw new FerretError('invalid_params', `cwd: not a directory: ${abs}`, { field: 'cwd' });
  return realpathSync(abs);
}

/** Whether p is a folder (undefined: nothing there). */
export function isDirectory(p: string): boolean | undefined {
  try {
    return statSync(p).isDirectory();
  } catch {
    return undefined;
  }
}

