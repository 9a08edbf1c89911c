// Telling the person about command files that were left out, once: the folders are read again at
// every listing and every turn, and the same refusal repeated each time would be noise. The
// server's log gets each (file, reason) once per process; a session gets it once as a `notice`
// (a warning in its transcript) at the first turn that finds it.
import type { Logger } from 'pino';
import type { SkippedCommand } from './team-commands.js';

const logged = new WeakMap<Logger, Set<string>>();
const noticed = new WeakMap<object, Set<string>>();

const keyOf = (s: SkippedCommand) => `${s.file}\0${s.reason}`;

/** The sentence a person reads for a skipped file. */
export function skippedText(s: SkippedCommand): string {
  return `command file ${s.file} left out: ${s.reason}`;
}

/** Those of `skipped` not yet in `seen`, which remembers them. */
function fresh(seen: Set<string>, skipped: readonly SkippedCommand[]): SkippedCommand[] {
  return skipped.filter((s) => {
    const k = keyOf(s);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Warns in the server's log of each skipped file it has not warned of yet. */
export function logSkipped(logger: Logger, skipped: readonly SkippedCommand[]): void {
  if (skipped.length === 0) return;
  let seen = logged.get(logger);
  if (!seen) logged.set(logger, (seen = new Set()));
  for (const s of fresh(seen, skipped)) logger.warn({ file: s.file, reason: s.reason }, 'team command file left out');
}

/** The skipped files a session has not been told of yet (and now counts as told). */
export function untoldSkipped(session: object, skipped: readonly SkippedCommand[]): SkippedCommand[] {
  if (skipped.length === 0) return [];
  let seen = noticed.get(session);
  if (!seen) noticed.set(session, (seen = new Set()));
  return fresh(seen, skipped);
}
