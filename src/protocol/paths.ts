import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';

/** Root of all state: CHIMERA_HOME in `env` (the CLI's copy of the environment), else ~/.chimera. */
export function chimeraHome(env: NodeJS.ProcessEnv): string {
  const h = env['CHIMERA_HOME'];
  return h && h.length > 0 ? h : join(homedir(), '.chimera');
}

/** Whether `p` is `root` or below it, lexically (resolve real paths first where links matter). */
export function isInside(root: string, p: string): boolean {
  const rel = relative(root, resolve(p));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Session ids become folder names: only this shape is ever accepted from outside. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
