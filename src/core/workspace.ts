import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { FerretError } from '../protocol/index.js';

/** A new session's workspace: `cwd` resolved against the server's, a folder that exists, its real path. */
export function resolveWorkspace(cwd: string, base: string): string {
  const abs = resolve(base, cwd);
  const dir = isDirectory(abs);
  if (dir === undefined) throw new FerretError('invalid_params', `cwd: no such directory: ${abs}`, { field: 'cwd' });
  if (!dir) throw new FerretError('invalid_params', `cwd: not a directory: ${abs}`, { field: 'cwd' });
  return realpathSync(abs);
}

/**
 * A session's extra roots (ACP `additionalDirectories`): each an absolute folder that exists, as its
 * real path (what the sandbox compares real paths against), duplicates and cwd itself dropped.
 */
export function resolveRoots(dirs: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  dirs.forEach((d, i) => {
    const field = `additionalDirectories[${i}]`;
    if (!isAbsolute(d)) throw new FerretError('invalid_params', `${field}: not an absolute path: ${d}`, { field: 'additionalDirectories' });
    const dir = isDirectory(d);
    if (dir === undefined) throw new FerretError('invalid_params', `${field}: no such directory: ${d}`, { field: 'additionalDirectories' });
    if (!dir) throw new FerretError('invalid_params', `${field}: not a directory: ${d}`, { field: 'additionalDirectories' });
    const real = realpathSync(d);
    if (real === '/') throw new FerretError('invalid_params', `${field}: the filesystem root cannot be a workspace root`, { field: 'additionalDirectories' });
    if (real !== cwd && !out.includes(real)) out.push(real);
  });
  return out;
}

/** Whether p is a folder (undefined: nothing there). */
export function isDirectory(p: string): boolean | undefined {
  try {
    return statSync(p).isDirectory();
  } catch {
    return undefined;
  }
}

