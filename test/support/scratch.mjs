// Folders that must really be outside the sandbox's reach. Plain Node ESM; types in scratch.d.mts.
import { mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './spawn.mjs';

// The sandbox gives commands a fresh /tmp, /var/tmp and /run: an "outside" folder under them
// would be hidden rather than protected, and an escape test would pass for the wrong reason.
const MASKED = ['/tmp', '/var/tmp', '/run'];

/**
 * A root (made if missing) for folders that must be really outside the sandbox's reach: the repo's
 * git-ignored .tmp/ unless the clone itself lives under a masked folder (CI may clone into /tmp),
 * then a folder under the home directory; `sub` names a folder inside it.
 */
export function scratchRoot(sub = '') {
  const real = realpathSync(REPO);
  const masked = MASKED.some((m) => real === m || real.startsWith(`${m}/`));
  const root = join(masked ? join(homedir(), '.cache', 'ferret-test') : join(REPO, '.tmp'), sub);
  mkdirSync(root, { recursive: true });
  return root;
}
