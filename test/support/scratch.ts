import { mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '../..');
// The sandbox gives commands a fresh /tmp, /var/tmp and /run: an "outside" folder under them
// would be hidden rather than protected, and an escape test would pass for the wrong reason.
const MASKED = ['/tmp', '/var/tmp', '/run'];

/**
 * A root for folders that must be really outside the sandbox's reach: the repo's git-ignored
 * .tmp/ unless the clone itself lives under a masked folder (CI may clone into /tmp), then a
 * folder under the home directory.
 */
export function scratchRoot(): string {
  const real = realpathSync(REPO);
  const masked = MASKED.some((m) => real === m || real.startsWith(`${m}/`));
  const root = masked ? join(homedir(), '.cache', 'ferret-test') : join(REPO, '.tmp');
  mkdirSync(root, { recursive: true });
  return root;
}
