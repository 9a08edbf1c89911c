import { homedir } from 'node:os';
import { join } from 'node:path';

/** Root of all state: CHIMERA_HOME, else ~/.chimera. Read per call so tests can point it elsewhere. */
export function chimeraHome(env: NodeJS.ProcessEnv = process.env): string {
  const h = env['CHIMERA_HOME'];
  return h && h.length > 0 ? h : join(homedir(), '.chimera');
}

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
