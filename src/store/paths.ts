import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export { chimeraHome } from '../protocol/paths.js';

export const SESSION_DIR_PREFIX = 'ferret-';

export function eventlogRoot(home: string): string {
  return join(home, 'eventlog');
}

export function sessionDir(home: string, sessionId: string): string {
  return join(eventlogRoot(home), SESSION_DIR_PREFIX + sessionId);
}

export function eventsFile(home: string, sessionId: string): string {
  return join(sessionDir(home, sessionId), 'events.jsonl');
}

export function metaFile(home: string, sessionId: string): string {
  return join(sessionDir(home, sessionId), 'meta.json');
}

export function ferretDir(home: string): string {
  return join(home, 'ferret');
}

export function auditFile(home: string): string {
  return join(ferretDir(home), 'audit.jsonl');
}

export function configFile(home: string): string {
  return join(ferretDir(home), 'config.json');
}

/**
 * Makes the state root and its folders, owner-only (0700): the logs hold tool output verbatim,
 * config.json holds API keys, the audit key signs decisions. Folders of ours that exist with
 * looser modes are tightened; a CHIMERA_HOME the person made keeps its own mode.
 */
export function ensureHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  for (const d of [ferretDir(home), eventlogRoot(home)]) {
    mkdirSync(d, { recursive: true, mode: 0o700 });
    tighten(d);
  }
  tighten(auditFile(home));
}

function tighten(p: string): void {
  try {
    const st = lstatSync(p);
    if (!st.isSymbolicLink() && (st.mode & 0o077) !== 0) chmodSync(p, st.mode & 0o7700);
  } catch {
    /* missing: made owner-only when it is made */
  }
}
