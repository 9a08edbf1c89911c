import type { ServerSettings } from '../server-settings.js';
import { findServer, versionToStart, type Found } from './server-check.js';
import { settingsHash, type ServerState } from './server-state.js';

// Whether a window takes over the detached server server.json names, replaces it, or starts one
// beside it. A server from another program or extension version is replaced, unless a session on
// it runs a turn (its own, or another window's) or another live window is connected to it: then it
// is used as it is, and replaced by a later window once nothing runs on it and no window uses it
// (stopping it would cut that window off: no window ever ends another's connection).

/** What this window would start. */
export interface Wanted {
  cwd: string;
  settings: ServerSettings;
  /** This extension's version. */
  extension: string;
  /** programPrint of the settings (undefined: the command is not a file found on PATH). */
  program: string | undefined;
}

export type Choice =
  /** Take it over; `outdated` says why it is not what this window would start, `kept` why it is used all the same. */
  | { kind: 'reuse'; found: Found; outdated?: string; kept?: string }
  /** Ours, idle and outdated: stop it (its pid was just checked) and start the new one. */
  | { kind: 'replace'; why: string }
  /** Nothing to take over: start one (a server left there, not ours to signal, ends by --idle-exit). */
  | { kind: 'start'; why?: string };

export interface Lookers {
  find: typeof findServer;
  versionToStart: typeof versionToStart;
  /** How many other live windows are connected to the server with this pid and url (window-slot.ts). */
  usedBy: (pid: number, url: string) => number;
}

const defaults: Lookers = { find: findServer, versionToStart, usedBy: () => 0 };

export async function chooseServer(st: ServerState | undefined, want: Wanted, lookers: Partial<Lookers> = {}): Promise<Choice> {
  const look = { ...defaults, ...lookers };
  if (!st) return { kind: 'start' };
  if (st.cwd !== want.cwd || st.settings !== settingsHash(want.settings)) return { kind: 'start', why: 'the last server ran with other settings' };
  const found = await look.find(st.pid, st.url, st.token);
  if (!found) return { kind: 'start', why: `no server of ours answers at ${st.url} (pid ${st.pid})` };
  const outdated = await outdatedBy(st, want, found, look);
  if (outdated === undefined) return { kind: 'reuse', found };
  if (found.running) return { kind: 'reuse', found, outdated, kept: 'a turn runs on it' };
  const others = look.usedBy(st.pid, st.url);
  if (others > 0) return { kind: 'reuse', found, outdated, kept: others === 1 ? 'another window is connected to it' : `${others} other windows are connected to it` };
  return { kind: 'replace', why: outdated };
}

/** Why the server is not what this window would start; undefined when it is (or that cannot be told). */
async function outdatedBy(st: ServerState, want: Wanted, found: Found, look: Lookers): Promise<string | undefined> {
  if (st.extension !== want.extension) return `the extension changed (${st.extension ?? 'an older one'} started it, this is ${want.extension})`;
  // The program's files decide when they can be found: an upgrade or a rebuild changes them.
  if (want.program !== undefined || st.program !== undefined) {
    return want.program === st.program ? undefined : `${want.settings.command} changed on disk since it started (it runs ${found.version ?? 'an unknown version'})`;
  }
  // A command that is no file on PATH (a shell alias): ask it its version.
  const next = await look.versionToStart(want.settings, want.cwd);
  if (next === undefined || found.version === undefined || next === found.version) return undefined;
  return `it runs ${found.version}; ${want.settings.command} is now ${next}`;
}
