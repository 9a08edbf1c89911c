// What a server's running turns are doing, and stopping them all: how `serve --idle-exit` decides
// that a server nobody is connected to may end (src/cli/idle-exit.ts).
import type { LiveSession } from './live-session.js';

/** What this server's running turns do now: none, all wait on a person, or one works. */
export type TurnActivity = 'none' | 'waiting' | 'working';

/** None run, every one waits on a person, or one works (the model, a command). */
export function turnActivity(sessions: Iterable<LiveSession>): TurnActivity {
  let any = false;
  for (const s of sessions) {
    if (s.status !== 'running') continue;
    if (s.waitingOnPerson !== true) return 'working';
    any = true;
  }
  return any ? 'waiting' : 'none';
}

/** Stops every running turn as a person's Stop would, each session told why first (a notice in its log); answers how many. */
export function stopTurns(sessions: Iterable<LiveSession>, why: string): number {
  let n = 0;
  for (const s of sessions) {
    if (s.status !== 'running') continue;
    try {
      s.emit({ type: 'notice', data: { level: 'warning', text: why } });
    } catch {
      // a session another server writes: its turn is not ours to stop
      continue;
    }
    if (s.cancel()) n++;
  }
  return n;
}
