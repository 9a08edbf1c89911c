import { promises as fsp } from 'node:fs';
import { errorText, FerretError, isFerretError, NO_BRIDGE, SESSION_ID_PATTERN, SLASH_COMMANDS, type BridgeStatus, type SessionSummary, type SlashCommand } from '../../protocol/index.js';
import { logSkipped } from '../commands/skipped-notices.js';
import { scanTeamCommands } from '../commands/team-commands.js';
import type { StoreStatus } from '../../store/session-store.js';
import type { Credential, ModelChoice } from '../../providers/catalog.js';
import { NO_MODEL } from '../../providers/resolve.js';
import type { ListPage, ListQuery, NewSessionOptions, SessionDefaults, Sessions } from '../api.js';
import { checkModel } from '../model-check.js';
import type { SessionFold } from '../folds.js';
import type { SessionDeps } from '../turn-host.js';
import { resolveRoots, resolveWorkspace } from '../workspace.js';
import type { LiveSession } from './live-session.js';
import { stopTurns, turnActivity, type TurnActivity } from './turn-activity.js';
import { storageError, type LocalOpener } from './local-opener.js';
import type { LocalSession } from '../session/local-session.js';
import type { EventDraft, SessionEvent } from '../../protocol/index.js';
import type { SessionSource } from './session-source.js';
import { runCommand, type CommandAnswer, type SessionCommand } from './session-commands.js';

/** How long sessions stay in memory. */
export interface SessionLimits {
  /** An idle session (no turn, no pending permission, no client) is let go after this long. */
  idleMs: number;
  /** Past this many live sessions, the least recently used idle ones are let go. */
  maxLive: number;
  /** …once they have been idle this long (default 3 s): sessions just made or used stay a moment. */
  lruGraceMs?: number;
}

// maxLive: a thousand sessions at work at once stay in memory (~16 KB each idle; their files are pooled).
export const DEFAULT_LIMITS: SessionLimits = { idleMs: 10 * 60_000, maxLive: 1024 };
/** Past maxLive, only sessions idle this long are let go (the ones just made or used stay a moment). */
const LRU_GRACE_MS = 3000;


/**
 * Owns every session of the server; sessions belong to it, not to a connection. Sessions nobody
 * uses are let go (snapshot kept, log closed, lock given back) after `idleMs`, and the least
 * recently used idle ones as soon as more than `maxLive` are in memory; `get`/`open` load them
 * back on demand, so every transport finds them as before.
 */
export class SessionManager implements Sessions {
  private readonly live = new Map<string, LiveSession>();
  private readonly opening = new Map<string, Promise<LiveSession>>();
  private readonly releasing = new Map<string, Promise<void>>();
  /** Each live session's updatedAt when a list last saved its summary. */
  private readonly listedAt = new WeakMap<LiveSession, number>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Told of every request that reaches a session (the idle warm-up waits for a quiet moment). */
  onActivity: (() => void) | undefined;

  constructor(
    readonly deps: SessionDeps,
    readonly defaults: SessionDefaults,
    /** Opens the sessions this server writes (new ones, and synchronous loads). */
    private readonly local: LocalOpener,
    /** Where a session not in memory comes from: `local`, or (a fleet) core/fleet's choice of who writes it. */
    private readonly source: SessionSource = local,
    readonly limits: SessionLimits = DEFAULT_LIMITS,
  ) {
    local.handoffAsked = (id) => void this.handOver(id);
  }

  /**
   * Another ferret process asked for a session this one holds (a second editor process loading
   * it): let it go once no turn runs and no question waits, whoever is attached here. Clients
   * here are told; a prompt from one of them later asks for it back the same way.
   */
  private async handOver(id: string): Promise<void> {
    const s = this.live.get(id);
    if (!s || s.isClosed || this.handing.has(id)) return;
    this.handing.add(id);
    try {
      while (s.status === 'running') await s.settled(); // a question waits only inside a turn
      if (this.live.get(id) !== s || s.isClosed || this.releasing.has(id)) return;
      s.emit({ type: 'notice', data: { level: 'info', text: 'Another ferret process opened this session and now writes it; a message sent here takes it back once that process is idle.' } });
      // An open meanwhile (a client here) waits for the lock to be given back, then asks for it again.
      const gone = s.release().finally(() => this.releasing.delete(id));
      this.releasing.set(id, gone);
      this.live.delete(id);
      await gone;
      this.deps.logger.info({ sessionId: id }, 'session handed over to another process');
    } catch (err) {
      this.deps.logger.warn({ err, sessionId: id }, 'handing a session over failed');
    } finally {
      this.handing.delete(id);
    }
  }

  private readonly handing = new Set<string>();

  create(opts: NewSessionOptions = {}): LiveSession {
    return this.createLocal(opts);
  }

  /**
   * A new session holding another's history (ACP's session/fork): every event of the source up to
   * its last whole turn (a turn still running is left out), under a new id, with the source's model,
   * mode, approval and reasoning; the source is not changed. Its log is an ordinary log: it loads
   * in any process like any session.
   */
  async fork(id: string, opts: { cwd?: string | undefined; additionalDirectories?: readonly string[] | undefined } = {}): Promise<LiveSession> {
    const src = await this.open(id, { write: false });
    await src.ready();
    const upTo = src.lastSeq;
    const events: SessionEvent[] = [];
    const sub = src.subscribe((e) => {
      if (e.seq <= upTo) events.push(e);
    }, 0);
    await sub.caughtUp;
    sub();
    let end = events.length;
    if (src.status === 'running') {
      const started = events.findLastIndex((e) => e.type === 'turn_start');
      if (started >= 0) end = started;
    }
    const st = src.state;
    // The source's extra roots come along unless the fork names its own.
    const roots = opts.additionalDirectories ?? st.additionalDirectories;
    const fork = this.createLocal({ cwd: opts.cwd ?? st.cwd, model: st.model, mode: st.mode, approval: st.approval, ...(roots ? { additionalDirectories: roots } : {}) });
    for (const e of events.slice(0, end)) {
      if (e.type === 'session_created') continue;
      fork.emit({ type: e.type, data: e.data } as EventDraft);
    }
    fork.saveMeta(true);
    return fork;
  }

  private createLocal(opts: NewSessionOptions): LocalSession {
    this.onActivity?.();
    const cwd = resolveWorkspace(opts.cwd ?? this.defaults.cwd, this.defaults.cwd);
    const roots = resolveRoots(opts.additionalDirectories ?? [], cwd);
    const model = opts.model ?? this.defaults.model;
    // A typo, a missing key or a malformed scripted file: refuse now, naming the field.
    if (opts.model !== undefined || model.startsWith('scripted:')) checkModel(this.deps.resolver, model, cwd);
    // A store that cannot write now (Redis away): refuse rather than keep the session in memory only.
    const down = this.deps.store.unavailable('cannot create a session');
    if (down) throw down;
    const session = this.local.create(crypto.randomUUID());
    session.emit({
      type: 'session_created',
      data: {
        cwd,
        model,
        mode: opts.mode ?? this.defaults.mode,
        sandbox: this.defaults.sandbox,
        approval: opts.approval ?? this.defaults.approval,
        // Logged only when configured: a log without it folds to the default (session-state.ts).
        ...(this.defaults.reasoning ? { reasoning: this.defaults.reasoning } : {}),
        ...(roots.length ? { additionalDirectories: roots } : {}),
      },
    });
    session.saveMeta(true);
    this.adopt(session);
    return session;
  }

  /**
   * A session in memory. Synchronous: the transports open the session a request names ahead with
   * `open` (a new process continuing an old session, or one let go while idle: its log read in
   * chunks), so the dialect or route finds it here. For one that is not in memory this answers
   * why the last `open` failed, that there is no such session, or starts one and says to try again.
   */
  get(id: string): LiveSession {
    this.onActivity?.();
    const s = this.live.get(id);
    if (s) {
      s.lastActive = Date.now();
      return s;
    }
    return this.notLoaded(id);
  }

  /** Why the last `open` of a session failed (what `get` answers then); a few hundred kept. */
  private readonly openFailures = new Map<string, Error>();

  private notLoaded(id: string): never {
    if (!SESSION_ID_PATTERN.test(id)) throw new FerretError('session_not_found', `no session ${JSON.stringify(id)}`, { field: 'sessionId' });
    const failed = this.openFailures.get(id) ?? this.deps.store.unavailable(`session ${id} cannot be loaded`);
    if (failed) throw failed;
    // A store that knows at once (the file store) says there is no such session now, not after a load.
    const known = this.deps.store.exists(id);
    if (known === false) throw new FerretError('session_not_found', `no session ${id}`, { field: 'sessionId' });
    if (known !== true) known.catch(() => undefined); // the load started below asks again and reports it
    this.open(id).catch(() => undefined);
    throw new FerretError('session_loading', `session ${id} is being loaded; try again in a moment`);
  }

  /**
   * A live session, or one loaded from its log in chunks (never holding the event loop for long).
   * `write: false` is a read (an HTTP GET): the source may serve it without taking the session
   * on (a fleet leaves a session whose writer is gone to the next command).
   */
  open(id: string, opts: { write?: boolean } = {}): Promise<LiveSession> {
    const write = opts.write ?? true;
    this.onActivity?.();
    const s = this.live.get(id);
    if (s?.defunct && s.idle) {
      // Its log lost its lease (or Redis its data): loaded afresh, which takes the lease again or names its owner.
      this.deps.logger.warn({ sessionId: id }, 'session log can no longer be written; loading the session again');
      s.close();
      this.live.delete(id);
    } else if (s && !this.source.stale(s)) {
      s.lastActive = Date.now();
      return Promise.resolve(s);
    }
    const pending = this.opening.get(id);
    if (pending) return pending;
    const p = (async () => {
      await this.releasing.get(id);
      const again = this.live.get(id);
      if (again) {
        again.lastActive = Date.now();
        return this.source.stale(again) ? this.source.revisit(again, write) : again;
      }
      await this.checkIdAsync(id);
      const session = await this.source.open(id, write);
      this.adopt(session);
      return session;
    })();
    this.opening.set(id, p);
    void p.then(
      () => {
        this.opening.delete(id);
        this.openFailures.delete(id);
      },
      (err: unknown) => {
        this.opening.delete(id);
        this.openFailures.delete(id);
        this.openFailures.set(id, storageError(id, err));
        if (this.openFailures.size > 256) this.openFailures.delete(this.openFailures.keys().next().value!);
      },
    );
    return p;
  }

  /** The session if it is in memory, without counting as a use (a listing, a status). */
  peek(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** Whether the session is in memory or in the store (a store that asks a server answers later: always awaited). */
  async has(id: string): Promise<boolean> {
    return this.live.has(id) || (SESSION_ID_PATTERN.test(id) && (await this.deps.store.exists(id)));
  }

  /** What GET /health says of the store. */
  storeStatus(): StoreStatus {
    return this.deps.store.status();
  }

  private bridgeSource: (() => BridgeStatus) | undefined;

  /** The bridge's state; the bridge itself is a transport the CLI starts and reports here (Core.reportBridge). */
  bridgeStatus(): BridgeStatus {
    return this.bridgeSource?.() ?? NO_BRIDGE;
  }

  reportBridge(source: () => BridgeStatus): void {
    this.bridgeSource = source;
  }

  async delete(id: string): Promise<void> {
    await this.checkIdAsync(id);
    const s = this.live.get(id);
    if (s) {
      if (s.status === 'running') throw new FerretError('session_busy', `session ${id} is running a turn: stop it or wait for it to end, then delete it`, { field: 'sessionId' });
      await this.releasing.get(id);
      if (this.live.get(id) === s) {
        s.close();
        this.live.delete(id);
      }
    }
    try {
      await this.deps.store.remove(id);
      // Snapshots kept outside the session's folder (a store elsewhere) go with it too.
      const undo = this.deps.checkpointDir?.(id);
      if (undo !== undefined) await fsp.rm(undo, { recursive: true, force: true });
    } catch (err) {
      throw isFerretError(err) ? err : storageError(id, err);
    }
  }

  private async checkIdAsync(id: string): Promise<void> {
    if (!SESSION_ID_PATTERN.test(id)) throw new FerretError('session_not_found', `no session ${JSON.stringify(id)}`, { field: 'sessionId' });
    let known: boolean;
    try {
      known = await this.deps.store.exists(id);
    } catch (err) {
      throw storageError(id, err);
    }
    if (!known) throw new FerretError('session_not_found', `no session ${id}`, { field: 'sessionId' });
  }

  /** A command whose caller waits for its answer: here, or at the fleet server that writes the session (`Sessions.command`). */
  async command<C extends SessionCommand>(id: string, cmd: C): Promise<CommandAnswer<C>> {
    const remote = this.source.remoteCommand(this.live.get(id), { ...cmd, sessionId: id });
    if (remote) return (await remote) as CommandAnswer<C>;
    if (cmd.op === 'close') return this.close(id).then(() => null) as Promise<CommandAnswer<C>>;
    // Served here: the session is written here (a transport's command never names a turn id).
    return runCommand(this.get(id), cmd, this.deps.logger) as Promise<CommandAnswer<C>>;
  }

  /** This server's name in its fleet (undefined: a single server). */
  get fleetInstance(): string | undefined {
    return this.source.instance;
  }

  /** A session enters memory: past the cap, the least recently used idle ones leave. */
  private adopt(s: LiveSession): void {
    this.live.set(s.id, s);
    this.enforceCap();
    if (!this.sweeper && Number.isFinite(this.limits.idleMs)) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(this.limits.idleMs, 30_000)));
      this.sweeper.unref();
    }
  }

  /**
   * Past maxLive, the least recently used sessions among those idle for LRU_GRACE_MS leave: a
   * burst that makes sessions and uses them a moment later does not load each one back from disk.
   */
  private enforceCap(): void {
    const over = this.live.size - this.releasing.size - this.limits.maxLive;
    if (over <= 0) return;
    const now = Date.now();
    const grace = this.limits.lruGraceMs ?? LRU_GRACE_MS;
    const idle = [...this.live.values()].filter((x) => x.idle && !this.releasing.has(x.id) && now - x.lastActive >= grace).sort((a, b) => a.lastActive - b.lastActive);
    for (const x of idle.slice(0, over)) void this.release(x);
    // Still over: look again once the newest of them have been idle long enough.
    if (idle.length < over && !this.capTimer) {
      this.capTimer = setTimeout(() => {
        this.capTimer = undefined;
        this.enforceCap();
      }, Math.max(10, grace));
      this.capTimer.unref();
    }
  }

  private capTimer: NodeJS.Timeout | undefined;

  /** Lets go of sessions idle for longer than idleMs. */
  private sweep(): void {
    const now = Date.now();
    for (const s of this.live.values()) if (s.idle && now - s.lastActive >= this.limits.idleMs) void this.release(s);
  }

  /**
   * Lets an idle session go: its state is kept in a snapshot, its log closed and its lock given
   * back. A session used again meanwhile stays. The next get/open loads it from the snapshot.
   */
  private release(s: LiveSession): Promise<void> {
    const had = this.releasing.get(s.id);
    if (had) return had;
    const mark = s.lastActive;
    const p = (async () => {
      await s.snapshot();
      if (!s.idle || s.lastActive !== mark || this.live.get(s.id) !== s) return;
      s.close();
      this.live.delete(s.id);
    })()
      .catch((err: unknown) => this.deps.logger.warn({ err, sessionId: s.id }, 'letting a session go failed'))
      .finally(() => this.releasing.delete(s.id));
    this.releasing.set(s.id, p);
    return p;
  }

  /**
   * A client is done with a session (ACP v1 session/close, HTTP close): it is let go now if no
   * one else uses it (no turn, no permission waiting, no other client), else as soon as its turn
   * ends (a turn's end counts as a use, so the idle timer alone would keep it for idleMs). A
   * session another client still holds stays until that client is done and it idles out.
   */
  async close(id: string): Promise<void> {
    const s = this.live.get(id);
    if (!s) {
      await this.checkIdAsync(id);
      return;
    }
    s.lastActive = 0; // first in line when it becomes idle
    s.endProcesses?.(); // a close asked for ends them; only the idle timer waits for them
    if (s.idle) return this.release(s);
    void s.settled().then(() => {
      if (this.live.get(id) === s && s.idle) void this.release(s);
    });
  }

  /** Sessions in memory now (for tests and the benchmarks' figures). */
  get liveCount(): number {
    return this.live.size;
  }

  /** Keeps a fold for sessions created or loaded from now on (a no-op when it is kept already). */
  useFold(fold: SessionFold): void {
    const folds = (this.deps.folds ??= []);
    if (!folds.some((f) => f.name === fold.name)) (folds as SessionFold[]).push(fold);
  }

  /**
   * Listens to every event the sessions this server writes emit from now on, whichever session
   * and whether or not it is in memory yet; it holds no session in memory. Unsubscribes when called.
   */
  observe(listener: (event: SessionEvent) => void): () => void {
    const observers = (this.deps.observers ??= new Set());
    observers.add(listener);
    return () => observers.delete(listener);
  }

  /** Whether any session runs a turn now. */
  get running(): boolean {
    for (const s of this.live.values()) if (s.status === 'running') return true;
    return false;
  }

  /** What the running turns do (turn-activity.ts). */
  get turnActivity(): TurnActivity {
    return turnActivity(this.live.values());
  }

  /** Stops every running turn as a person's Stop would, each session told why first. */
  stopTurns(why: string): number {
    return stopTurns(this.live.values(), why);
  }

  /** The `/` menu of a session in `cwd`: the built-ins, then the team's command files (read now; files left out are logged once). */
  slashCommands(cwd: string): SlashCommand[] {
    const scan = scanTeamCommands(cwd, this.deps.home);
    logSkipped(this.deps.logger, scan.skipped);
    const team = scan.commands.map(({ name, description, hint, source }) => ({ name, description, ...(hint ? { hint } : {}), source }));
    return [...SLASH_COMMANDS.map((c) => ({ ...c, source: 'builtin' as const })), ...team];
  }

  /** Every model a person can pick now, with the default and `current` (a session's model) first. */

  models(current?: string): ModelChoice[] {
    const out: ModelChoice[] = [];
    const seen = new Set<string>();
    const add = (m: ModelChoice) => {
      if (m.id.length === 0 || seen.has(m.id)) return;
      seen.add(m.id);
      out.push(m);
    };
    // The current model is always listed (a picker shows its value), even "none"; the default only when it can run.
    const catalog = this.deps.catalog.models();
    const named = (id: string) => catalog.find((m) => m.id === id) ?? { id, name: id === NO_MODEL ? 'none (no model configured)' : modelName(id) };
    if (current) add(named(current));
    if (this.defaults.model !== NO_MODEL) add(named(this.defaults.model));
    for (const m of catalog) add(m);
    return out;
  }

  /** Where the built-in providers read their keys, and whether each is set. */
  credentials(): Credential[] {
    return this.deps.catalog.credentials();
  }

  /** Why the default model (or `model`) cannot run now, or undefined when it can (ACP v1 authenticate asks). */
  modelProblem(model: string = this.defaults.model): string | undefined {
    try {
      checkModel(this.deps.resolver, model, this.defaults.cwd);
      return undefined;
    } catch (err) {
      return errorText(err);
    }
  }

  /** Sessions newest first, a page at a time (from the store's index: no log or meta file is read per call). */
  async list(q: ListQuery = {}): Promise<ListPage> {
    this.onActivity?.();
    // The index orders the page: first give it what live sessions did since (a turn running, an
    // approval changed: events a session saves no summary for), so a page is newest first by the
    // times it shows. Only sessions changed since the last list are saved.
    for (const s of this.live.values()) {
      const at = s.state.updatedAt;
      if (this.listedAt.get(s) === at) continue;
      this.listedAt.set(s, at);
      s.saveMeta();
    }
    const cwd = q.cwd;
    let page;
    try {
      page = await this.deps.store.listMetas({ cursor: q.cursor, limit: q.limit, ...(cwd ? { filter: (m) => m.cwd === cwd } : {}) });
    } catch (err) {
      if (err instanceof Error && err.name === 'BadCursorError') throw new FerretError('invalid_params', err.message, { field: 'cursor' });
      throw err;
    }
    const sessions = page.metas.map((m): SessionSummary => {
      const s = this.live.get(m.sessionId);
      return s && !s.isClosed ? s.summary() : { ...m, status: 'idle', live: false };
    });
    return { sessions, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /** Graceful stop: cancel running turns, wait for them, keep snapshots, flush and close every log. */
  async shutdown(): Promise<void> {
    clearInterval(this.sweeper);
    clearTimeout(this.capTimer);
    const all = [...this.live.values()];
    for (const s of all) s.cancel();
    await Promise.all(all.map((s) => s.settled()));
    await Promise.all(this.releasing.values());
    for (const s of all) s.saveMeta();
    await Promise.all(all.map((s) => s.release()));
    this.live.clear();
    // A store that cannot write now (Redis away) is flushed, within a bound, by whoever closes it.
    if (!this.deps.store.unavailable()) await this.deps.store.flush();
  }
}

/** A model id as a person reads it: `scripted (hello.json)`, else the id. */
function modelName(id: string): string {
  if (id.startsWith('scripted:')) return `scripted (${id.slice('scripted:'.length).split('/').pop() ?? id})`;
  return id;
}
