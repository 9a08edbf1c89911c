import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { PendingEdit } from '../edits/pending-edits.js';
import type { HeldWrite } from './server-state.js';

// One record per window open on this workspace, in the folder all its windows share (see
// sharedStorage): the session it shows, the edits awaiting its person's review, and, with a
// detached server, its ACP connection, client id and the writes held on it. A window writes only
// its own record, so two windows never overwrite each other's.
//
// A new window takes over (continues) the record of a window that is gone: one that said so when
// it closed (`released`) or whose extension host process has ended. That is how a reload finds
// what the window before it left; a second window opened beside a live one finds no such record
// and starts its own, so it can never continue (and cut off) the first window's connection.

/** What a window with a detached server keeps for the window after it. */
export interface DetachedPart {
  /** The server it spoke to (a record for another server is not continued). */
  serverPid: number;
  serverUrl: string;
  /** Its ACP-over-HTTP connection, and the client id ferret gave it (a reload continues it). */
  connection: string;
  clientId?: string;
  /** Writes the server waits on a person's Accept/Reject for, on this or an earlier connection. */
  held: HeldWrite[];
}

export interface SlotRecord {
  id: string;
  /** The window's own storage folder (VS Code hands it to the window reloaded in its place). */
  storage?: string;
  /** The extension host's pid: a record whose process is gone belongs to no window. */
  hostPid: number;
  /** When the window closed or reloaded (its deactivate ran). */
  released?: number;
  /** Last written. */
  at: number;
  sessionId?: string;
  pending: PendingEdit[];
  detached?: DetachedPart;
}

/** How long a previous window's session is shown again unasked (a reload; a window closed and opened again soon). */
export const RESUME_WITHIN_MS = 10 * 60_000;
/** Records of windows gone this long are deleted. */
const FORGET_AFTER_MS = 7 * 24 * 3600_000;
/** A reload's old extension host may still be shutting down when the new one starts: waited for this long. */
const DYING_WAIT_MS = 4000;
/** A gone record in this window's own storage folder, this recent, is the window it reloads. */
const RELOAD_MS = 60_000;

/**
 * The storage folder every window on this workspace shares. VS Code gives each live window's
 * extension host a workspace storage folder of its own: a second window on a folder that one
 * holds gets `<hash>-1` (up to -9) beside `<hash>`. The server and the window records live in the
 * `<hash>` one, so every window finds the one server and sees the others.
 */
export function sharedStorage(storage: string): string {
  const m = /^(.+)-[1-9]$/.exec(basename(dirname(storage)));
  return m ? join(dirname(dirname(storage)), m[1]!, basename(storage)) : storage;
}

function alive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function read(file: string): SlotRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as Partial<SlotRecord>;
    if (typeof r.id !== 'string' || typeof r.hostPid !== 'number' || typeof r.at !== 'number') return undefined;
    return { ...(r as SlotRecord), pending: Array.isArray(r.pending) ? r.pending.filter(isEdit) : [] };
  } catch {
    return undefined;
  }
}

function isEdit(x: unknown): x is PendingEdit {
  const e = x as PendingEdit;
  return typeof e?.path === 'string' && typeof e.proposed === 'string' && (e.original === null || typeof e.original === 'string') && typeof e.sessionId === 'string';
}

/** Gone: it said so, or its process ended. */
export const isGone = (r: SlotRecord): boolean => r.released !== undefined || !alive(r.hostPid);

export class WindowSlot {
  private readonly file: string;
  private saving = true;

  private constructor(
    private readonly dir: string,
    readonly record: SlotRecord,
    /** The record of the window this one continues (a reload), if any. */
    readonly previous: SlotRecord | undefined,
  ) {
    this.file = join(dir, `${record.id}.json`);
  }

  /**
   * This window's record: it continues the newest record of a window that is gone (taken by an
   * atomic rename, so two windows starting at once never both take it), else starts empty. When
   * only live windows' records are there, one may be a reload's old host still shutting down: its
   * end is waited for a few seconds before this window counts as a second one.
   */
  static async claim(shared: string, own: string, hostPid = process.pid, waitMs = DYING_WAIT_MS): Promise<WindowSlot> {
    const dir = join(shared, 'windows');
    mkdirSync(dir, { recursive: true });
    const deadline = Date.now() + waitMs;
    for (;;) {
      const all = WindowSlot.records(dir).filter((r) => r.hostPid !== hostPid || r.released !== undefined);
      const now = Date.now();
      for (const r of all) if (isGone(r) && now - (r.released ?? r.at) > FORGET_AFTER_MS) rmSync(join(dir, `${r.id}.json`), { force: true });
      // The window this one reloads, still shutting down in this storage folder: wait for it.
      if (all.some((r) => r.storage === own && !isGone(r)) && now < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      const ended = (r: SlotRecord) => r.released ?? r.at;
      const reloaded = (r: SlotRecord) => (r.storage === own && now - ended(r) < RELOAD_MS ? 1 : 0);
      const gone = all.filter(isGone).sort((a, b) => reloaded(b) - reloaded(a) || ended(b) - ended(a));
      for (const r of gone) {
        const taken = join(dir, `${r.id}.json.taken-${hostPid}`);
        try {
          renameSync(join(dir, `${r.id}.json`), taken);
        } catch {
          continue; // another window took it first
        }
        const prev = read(taken) ?? r;
        rmSync(taken, { force: true });
        return WindowSlot.start(dir, own, hostPid, prev);
      }
      return WindowSlot.start(dir, own, hostPid, undefined);
    }
  }

  private static start(dir: string, own: string, hostPid: number, prev: SlotRecord | undefined): WindowSlot {
    const record: SlotRecord = { id: randomUUID(), storage: own, hostPid, at: Date.now(), pending: prev?.pending ?? [], ...(prev?.sessionId ? { sessionId: prev.sessionId } : {}) };
    const slot = new WindowSlot(dir, record, prev);
    slot.save();
    return slot;
  }

  /** Every readable record in the folder (half-written or foreign files are skipped). */
  static records(dir: string): SlotRecord[] {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    return names.flatMap((n) => read(join(dir, n)) ?? []);
  }

  /** The session the newest live other window shows (a second window may show it too). */
  liveSession(): string | undefined {
    const live = WindowSlot.records(this.dir).filter((r) => r.id !== this.record.id && !isGone(r) && r.sessionId);
    return live.sort((a, b) => b.at - a.at)[0]?.sessionId;
  }

  /** The previous window's session, when it is worth showing again unasked: it ended recently, or it left edits to review. */
  resumable(now = Date.now()): string | undefined {
    const p = this.previous;
    if (!p?.sessionId) return undefined;
    const ended = p.released ?? p.at;
    return now - ended < RESUME_WITHIN_MS || p.pending.length > 0 ? p.sessionId : undefined;
  }

  /** How many other live windows are connected to this server (an upgraded window must not stop it under them). A record of this extension host is this window's own, as in claim. */
  othersOn(serverPid: number, serverUrl: string): number {
    const others = WindowSlot.records(this.dir).filter((r) => r.hostPid !== this.record.hostPid && !isGone(r));
    return others.filter((r) => r.detached?.serverPid === serverPid && r.detached.serverUrl === serverUrl).length;
  }

  /** Paths of this session whose edits wait for a person's review in another live window (a viewer's card says so). */
  reviewedElsewhere(sessionId: string): string[] {
    const others = WindowSlot.records(this.dir).filter((r) => r.hostPid !== this.record.hostPid && !isGone(r));
    return [...new Set(others.flatMap((r) => r.pending.filter((e) => e.sessionId === sessionId).map((e) => e.path)))].sort();
  }

  /** Calls `changed` (at most every 100 ms) when any window's record changes; returns the stop function. */
  watch(changed: () => void): () => void {
    let timer: NodeJS.Timeout | undefined;
    try {
      const w = watch(this.dir, () => {
        timer ??= setTimeout(() => {
          timer = undefined;
          changed();
        }, 100);
      });
      w.on('error', () => undefined);
      return () => {
        clearTimeout(timer);
        w.close();
      };
    } catch {
      return () => undefined; // no watching here: cards then only say so at the next update
    }
  }

  /** The previous window's detached part, if it spoke to this same server (a reload within its life). */
  inheritedDetached(serverPid: number, serverUrl: string): DetachedPart | undefined {
    const d = this.previous?.detached;
    return d && d.serverPid === serverPid && d.serverUrl === serverUrl ? d : undefined;
  }

  remember(sessionId: string): void {
    this.record.sessionId = sessionId;
    this.save();
  }

  setPending(edits: PendingEdit[]): void {
    this.record.pending = edits;
    this.save();
  }

  setDetached(d: DetachedPart | undefined): void {
    if (d) this.record.detached = d;
    else delete this.record.detached;
    this.save();
  }

  /** The window closes or reloads: the next window may continue this record. Later changes are not written (what it reads stays as it was). */
  release(): void {
    this.record.released = Date.now();
    this.save();
    this.saving = false;
  }

  /** Written whole, then renamed (a reload may come any moment), readable by this user only. */
  save(): void {
    if (!this.saving) return;
    this.record.at = Date.now();
    try {
      mkdirSync(this.dir, { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.record), { mode: 0o600 });
      renameSync(tmp, this.file);
    } catch {
      // Keeping state across a reload is a convenience; the window works without it.
    }
  }
}

