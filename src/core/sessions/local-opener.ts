import { FerretError, isFerretError, type SandboxMode } from '../../protocol/index.js';
import type { SessionLog } from '../../store/session-store.js';
import { LocalSession } from '../session/local-session.js';
import type { SessionDeps } from '../turn-host.js';
import type { LiveSession } from './live-session.js';
import { loadSession, type Loaded } from './session-load.js';
import type { SessionSource } from './session-source.js';

/** How long a load waits for another process to hand over a session it holds (it lets go once idle). */
const HANDOFF_WAIT_MS = 5_000;

/** Why a loaded log's last turn has no end: whoever ran it stopped first. */
const INTERRUPTED = 'the ferret server that ran it stopped before the turn ended';

/**
 * Opens sessions this server writes: takes the log's lock, folds the log in chunks, and builds
 * the LocalSession over it. A single server's only source; a fleet's for the sessions it writes.
 */
export class LocalOpener implements SessionSource {
  readonly instance = undefined;
  /** Another process asked for a session this one holds (set by the session table, which lets it go when idle). */
  handoffAsked: ((id: string) => void) | undefined;

  constructor(
    private readonly deps: SessionDeps,
    /** The server's sandbox: a loaded session runs under it whatever it was created with. */
    private readonly sandbox: SandboxMode,
  ) {}

  /** A new session's log (made now) and the session over it. */
  create(id: string): LocalSession {
    const made: { session?: LocalSession } = {};
    try {
      made.session = LocalSession.over(id, this.deps, this.openLog(id, () => made.session));
    } catch (err) {
      throw new FerretError('storage', `cannot create the session log under ${this.deps.home}: ${(err as Error).message}`);
    }
    return made.session;
  }

  /**
   * A stored session, folded in chunks. `check` sees the folded state before the session is
   * built (a fleet server refuses a session whose workspace it lacks); its error closes the log.
   */
  async open(id: string, _write = true, check?: (loaded: Loaded) => void): Promise<LocalSession> {
    const made: { session?: LocalSession } = {};
    const log = await this.openLogHandedOver(id, () => made.session);
    let loaded: Loaded;
    try {
      loaded = await loadSession(id, log, this.deps.folds ?? []);
      check?.(loaded);
    } catch (err) {
      log.close(); // its lock (or lease) given back
      throw storageError(id, err);
    }
    made.session = this.build(id, log, loaded);
    return made.session;
  }

  stale(): boolean {
    return false;
  }

  async revisit(s: LiveSession): Promise<LiveSession> {
    return s;
  }

  /** Every session a single server has is its own: no command goes elsewhere. */
  remoteCommand(): undefined {
    return undefined;
  }

  /**
   * The log of a stored session; when another live process holds it, that process is asked to
   * hand it over (it lets go once idle) and the lock is taken as soon as it is free, so a second
   * editor process loads the session instead of being refused (docs/ide.md, *Sessions another
   * process holds*). A holder still busy after HANDOFF_WAIT_MS is named in the error.
   */
  private async openLogHandedOver(id: string, session: () => LocalSession | undefined): Promise<SessionLog> {
    const deadline = Date.now() + HANDOFF_WAIT_MS;
    let withdraw: (() => void) | undefined;
    try {
      for (;;) {
        try {
          return this.openLog(id, session);
        } catch (err) {
          const pid = isFerretError(err, 'session_elsewhere') ? err.data?.pid : undefined;
          if (pid === undefined || !this.deps.store.askHandoff || Date.now() >= deadline) throw busyHolder(err, withdraw !== undefined);
          withdraw ??= this.deps.store.askHandoff(id);
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    } finally {
      withdraw?.();
    }
  }

  /** Takes the session's lock and opens its log; the notice of a failing write goes to the session once it exists. */
  private openLog(id: string, session: () => LocalSession | undefined): SessionLog {
    const onError = (err: Error) => {
      this.deps.logger.error({ err, sessionId: id }, 'event log write failed');
      // The notice itself is queued for the log too; the writer reports a failure streak once, so this cannot loop.
      session()?.emit({ type: 'notice', data: { level: 'error', text: `ferret could not write the session log: ${err.message}` } });
    };
    const log = this.deps.store.open(id, onError, () => this.handoffAsked?.(id));
    if ('owner' in log) {
      const who = typeof log.owner === 'number' ? `another ferret process (pid ${log.owner})` : `ferret instance ${log.owner}`;
      throw new FerretError('session_elsewhere', `session ${id} is open in ${who}; one process writes a session at a time`, typeof log.owner === 'string' ? { owner: log.owner } : { pid: log.owner });
    }
    return log;
  }

  private build(id: string, log: SessionLog, loaded: Loaded): LocalSession {
    const session = LocalSession.over(id, this.deps, log, loaded, this.sandbox);
    const { tornTail, badLines } = loaded.damage;
    if (tornTail || badLines) {
      this.deps.logger.warn({ sessionId: id, tornTail, badLines }, 'session log was damaged; loaded what was whole');
      session.emit({
        type: 'notice',
        data: {
          level: 'warning',
          text: `the session log was damaged (${tornTail ? 'a torn last line' : ''}${tornTail && badLines ? ', ' : ''}${badLines ? `${badLines} bad lines` : ''}); everything before it was restored`,
        },
      });
    }
    // The log's last turn never ended: the process (or fleet server) that ran it is gone.
    session.endInterruptedTurn(INTERRUPTED);
    // Folded from seq 1 (no snapshot yet, or one that no longer matched): keep one now for the next load.
    if (loaded.rebuilt && loaded.lastSeq > 1000) void session.snapshot();
    return session;
  }
}

/** The holder was asked and did not let go in time: it is running a turn (or waiting on a question). */
function busyHolder(err: unknown, asked: boolean): unknown {
  if (!asked || !isFerretError(err, 'session_elsewhere')) return err;
  return new FerretError('session_elsewhere', `${err.message}; asked to hand it over, it did not within ${HANDOFF_WAIT_MS / 1000} s (it finishes a running turn first): try again when that turn has ended`, err.data);
}

export function storageError(id: string, err: unknown): FerretError {
  if (isFerretError(err)) return err;
  return new FerretError('storage', `session ${id}: its log could not be read: ${(err as Error).message}`);
}
