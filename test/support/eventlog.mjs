// A session's event log on disk (src/core/events.ts), as tests and benchmarks read it back. Plain Node ESM; types in eventlog.d.mts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where ferret keeps a session's events.jsonl under CHIMERA_HOME. */
export function eventsPath(home, sessionId) {
  return join(home, 'eventlog', `ferret-${sessionId}`, 'events.jsonl');
}

/** Every whole line of a session's events.jsonl, parsed ([] when there is none; a torn tail is dropped, as a loader would). */
export function readEvents(home, sessionId) {
  const p = eventsPath(home, sessionId);
  if (!existsSync(p)) return [];
  const out = [];
  for (const line of readFileSync(p, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a torn last line; the caller decides whether that matters
    }
  }
  return out;
}
