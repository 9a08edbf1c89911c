import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { SessionMetaSchema, type SessionMeta } from '../protocol/index.js';
import { metaFile, SESSION_DIR_PREFIX, eventlogRoot } from './paths.js';

export function writeMeta(home: string, meta: SessionMeta): void {
  const file = metaFile(home, meta.sessionId);
  const tmp = file + '.tmp';
  writeFileSync(tmp, JSON.stringify(meta), { mode: 0o600 });
  renameSync(tmp, file);
}

export function readMeta(home: string, sessionId: string): SessionMeta | undefined {
  try {
    const parsed = SessionMetaSchema.safeParse(JSON.parse(readFileSync(metaFile(home, sessionId), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function listStoredSessionIds(home: string): string[] {
  try {
    return readdirSync(eventlogRoot(home), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name.startsWith(SESSION_DIR_PREFIX))
      .map((d) => d.name.slice(SESSION_DIR_PREFIX.length));
  } catch {
    return [];
  }
}
