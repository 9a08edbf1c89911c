import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { metaFile, SESSION_DIR_PREFIX, eventlogRoot } from './paths.js';

// A small summary beside each log so session/list never reads whole logs.
export const SessionMetaSchema = z.object({
  sessionId: z.string(),
  cwd: z.string(),
  title: z.string().optional(),
  model: z.string(),
  mode: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  costUsd: z.number().default(0),
});
export type SessionMeta = z.infer<typeof SessionMetaSchema>;

/** A session as session/list and GET /session show it: its meta plus whether it runs now. */
export const SessionSummarySchema = SessionMetaSchema.extend({
  status: z.enum(['idle', 'running']),
  live: z.boolean(),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export function writeMeta(home: string, meta: SessionMeta): void {
  const file = metaFile(home, meta.sessionId);
  const tmp = file + '.tmp';
  writeFileSync(tmp, JSON.stringify(meta));
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
