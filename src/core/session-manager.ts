import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FerretError, isFerretError, SESSION_ID_PATTERN, type AgentMode, type ApprovalPreset, type SandboxMode, type SessionSummary } from '../protocol/index.js';
import type { FleetCall, SessionLog, StoreStatus } from '../store/session-store.js';
import type { Credential, ModelChoice } from '../providers/catalog.js';
import { NO_MODEL } from '../providers/resolve.js';
import { checkModel } from './model-check.js';
import type { SessionFold } from './folds.js';
import { Session } from './session.js';
import { loadSession, type Loaded } from './session-load.js';
import type { SessionDeps } from './turn-host.js';

export interface SessionDefaults {
  cwd: string;
  model: string;
  mode: AgentMode;
  sandbox: SandboxMode;
  approval: ApprovalPreset;
}

export interface NewSessionOptions {
  cwd?: string | undefined;
  model?: string | undefined;
  mode?: AgentMode | undefined;
  approval?: ApprovalPreset | undefined;
}

/** How long sessions stay in memory. */
export interface SessionLimits {
  /** An idle session (no turn, no pending permission, no client) is let go after this long. */
  idleMs: number;
  /** Past this many live sessions, the least recently used idle ones are let go. */
  maxLive: number;
  /** …once they have been idle this long (default 3 s): sessions just made or used stay a moment. */
  lruGraceMs?: number;
}

/** Who a follower follows when no server writes the session (its writer stopped, or let it go). */
const NO_WRITER = 'none (no server writes it now)';

/** Why a loaded log's last turn has no end: whoever ran it stopped first. */
const INTERRUPTED = 'the ferret server that ran it stopped before the turn ended';

// maxLive: a thousand sessions at work at once stay in memory (~16 KB each idle; their files are pooled).
export const DEFAULT_LIMITS: SessionLimits = { idleMs: 10 * 60_000, maxLive: 1024 };
/** Past maxLive, only sessions idle this long are let go (the ones just made or used stay a moment). */
const LRU_GRACE_MS = 3000;


export interface ListPage {
  sessions: SessionSummary[];
  /** Pass back as `cursor` for the next page; absent on the last. */
  nextCursor?: string;
}

export interface ListQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
  /** Only sessions of this workspace. */
  cwd?: string | undefined;
}

/**
 * Owns every session of the server; sessions belong to it, not to a connection. Sessions nobody
 * uses are let go (snapshot kept, log closed, lock given back) after `idleMs`, and the least
 * recently used idle ones as soon as more than `maxLive` are in memory; `get`/`open` load them
 * back on demand, so every transport finds them as before.
 */
export class SessionManager {
  private readonly live = new Map<string, Session>();
  private readonly opening = new Map<string, Promise<Session>>();
  private readonly releasing = new Map<string, Promise<void>>();
  /** Each live session's updatedAt when a list last saved its summary. */
  private readonly listedAt = new WeakMap<Session, number>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Told of every request that reaches a session (the idle warm-up waits for a quiet moment). */
  onActivity: (() => void) | undefined;

  constructor(
    readonly deps: SessionDeps,
    readonly defaults: SessionDefaults,
    readonly limits: SessionLimits = DEFAULT_LIMITS,
  ) {
    deps.store.fleet?.serve((call) => this.served(call));
  }

  /** A command another fleet server sent for a session this one writes (its follower's client, over ACP). */
  private async served(call: FleetCall): Promise<unknown> {
    const s = await this.open(call.sessionId);
    if (s.writtenBy !== undefined) {
      throw new FerretError('session_busy', `session ${call.sessionId} is not written by ferret instance ${this.fleetInstance}`, { owner: s.writtenBy });
    }
    switch (call.op) {
      case 'startTurn':
        return s.startTurn(call.text, call.origin, call.turnId).done;
      case 'cancel':
        return s.cancel();
      case 'respondPermission':
        return s.respondPermission(call.requestId, call.decision, call.by);
      case 'setMode':
        return s.setMode(call.mode);
      case 'setModel':
        return s.setModel(call.model);
      case 'setApproval':
        return s.setApproval(call.preset);
    }
  }

  create(opts: NewSessionOptions = {}): Session {
    this.onActivity?.();
    const cwd = resolveWorkspace(opts.cwd ?? this.defaults.cwd, this.defaults.cwd);
    const model = opts.model ?? this.defaults.model;
    // A typo, a missing key or a malformed scripted file: refuse now, naming the field.
    if (opts.model !== undefined || model.startsWith('scripted:')) checkModel(this.deps.resolver, model, cwd);
    // A store that cannot write now (Redis away): refuse rather than keep the session in memory only.
    const down = this.deps.store.unavailable('cannot create a session');
    if (down) throw down;
    const id = crypto.randomUUID();
    let session: Session;
    try {
      session = new Session(id, this.deps, this.openLog(id, () => session));
    } catch (err) {
      throw new FerretError('storage', `cannot create the session log under ${this.deps.home}: ${(err as Error).message}`);
    }
    session.emit({
      type: 'session_created',
      data: {
        cwd,
        model,
        mode: opts.mode ?? this.defaults.mode,
        sandbox: this.defaults.sandbox,
        approval: opts.approval ?? this.defaults.approval,
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
  get(id: string): Session {
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
    throw new FerretError('session_busy', `session ${id} is being loaded; try again in a moment`);
  }

  /**
   * A live session, or one loaded from its log in chunks (never holding the event loop for long).
   * In a fleet, a session whose writer is gone is taken over here only for a command
   * (`write`, the default); a read (an HTTP GET) leaves it to the next command.
   */
  open(id: string, opts: { write?: boolean } = {}): Promise<Session> {
    const write = opts.write ?? true;
    this.onActivity?.();
    const s = this.live.get(id);
    if (s?.defunct && s.idle) {
      // Its log lost its lease (or Redis its data): loaded afresh, which takes the lease again or names its owner.
      this.deps.logger.warn({ sessionId: id }, 'session log can no longer be written; loading the session again');
      s.close();
      this.live.delete(id);
    } else if (s && s.writtenBy === undefined) {
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
        return this.checkWriter(again, write);
      }
      await this.checkIdAsync(id);
      // A fleet: a session another live server writes is followed here, its commands sent there.
      const fleet = this.deps.store.fleet;
      const owner = fleet ? await fleet.ownerOf(id) : undefined;
      if (fleet && owner !== undefined && owner !== fleet.instanceId) return this.buildFollower(id, owner);
      // A read of a session no server writes now: followed, not taken (the next command takes it).
      if (fleet && owner === undefined && !write) return this.buildFollower(id, NO_WRITER);
      const made: { session?: Session } = {};
      const log = this.openLog(id, () => made.session);
      let loaded: Loaded;
      try {
        loaded = await loadSession(id, log, this.deps.folds ?? []);
      } catch (err) {
        log.close();
        // Another fleet server took the lease first: follow it.
        const other = isFerretError(err) && err.code === 'session_busy' ? err.data?.['owner'] : undefined;
        if (fleet && typeof other === 'string' && other !== fleet.instanceId) return this.buildFollower(id, other);
        throw storageError(id, err);
      }
      made.session = this.build(id, log, loaded);
      return made.session;
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
  peek(id: string): Session | undefined {
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

  /** Takes the session's lock and opens its log; the notice of a failing write goes to the session once it exists. */
  private openLog(id: string, session: () => Session | undefined): SessionLog {
    const log = this.deps.store.open(id, (err) => {
      this.deps.logger.error({ err, sessionId: id }, 'event log write failed');
      // The notice itself is queued for the log too; the writer reports a failure streak once, so this cannot loop.
      session()?.emit({ type: 'notice', data: { level: 'error', text: `ferret could not write the session log: ${err.message}` } });
    });
    if ('owner' in log) {
      const who = typeof log.owner === 'number' ? `another ferret process (pid ${log.owner})` : `ferret instance ${log.owner}`;
      throw new FerretError('session_busy', `session ${id} is open in ${who}; one process writes a session at a time`, typeof log.owner === 'string' ? { owner: log.owner } : undefined);
    }
    return log;
  }

  private build(id: string, log: SessionLog, loaded: Loaded): Session {
    const fleet = this.deps.store.fleet;
    if (fleet) {
      try {
        missingWorkspace(id, loaded.state.cwd, fleet.instanceId);
      } catch (err) {
        log.close(); // its lease given back: a server that has the workspace can take it
        throw err;
      }
    }
    // Sandbox is fixed per server: a loaded session runs under this server's mode.
    const session = new Session(id, this.deps, log, loaded, this.defaults.sandbox);
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
    this.adopt(session);
    return session;
  }

  /** A session another fleet server writes: loaded read-only from the shared store, then following its writer. */
  private async buildFollower(id: string, owner: string): Promise<Session> {
    const fleet = this.deps.store.fleet!;
    const log = await fleet.openFollower(id, owner);
    let loaded: Loaded;
    try {
      loaded = await loadSession(id, log, this.deps.folds ?? []);
    } catch (err) {
      log.close();
      throw storageError(id, err);
    }
    const session = new Session(id, this.deps, log, loaded, this.defaults.sandbox);
    this.adopt(session);
    return session;
  }

  /**
   * A follower whose writer is gone (its lease ran out) becomes the writer here: the lease taken,
   * the turn it left unfinished ended as interrupted. Another server that took it first becomes
   * the one followed instead.
   */
  private async checkWriter(s: Session, write: boolean): Promise<Session> {
    const fleet = this.deps.store.fleet;
    const was = s.writtenBy;
    if (!fleet || was === undefined) return s;
    const owner = await fleet.ownerOf(s.id);
    if ((owner !== undefined && owner !== fleet.instanceId) || !write) {
      if (owner !== undefined) s.writtenBy = owner;
      await s.catchUp();
      return s;
    }
    missingWorkspace(s.id, s.state.cwd, fleet.instanceId);
    const log = await fleet.openWriter(s.id, (err) => this.deps.logger.error({ err, sessionId: s.id }, 'event log write failed'));
    if ('owner' in log) {
      s.writtenBy = log.owner;
      return s;
    }
    this.deps.logger.warn({ sessionId: s.id, from: was, to: fleet.instanceId }, 'taking the session over: no other server writes it now');
    await s.takeOver(log, `ferret instance ${was} stopped before the turn ended (its lease ran out), and ferret instance ${fleet.instanceId} took the session over`);
    return s;
  }

  /** Where to send a command for a session another fleet server writes (undefined: it is served here). */
  async forwardTarget(id: string): Promise<{ instance: string; url: string | undefined } | undefined> {
    const owner = this.live.get(id)?.writtenBy;
    const fleet = this.deps.store.fleet;
    if (owner === undefined || !fleet) return undefined;
    return { instance: owner, url: await fleet.addressOf(owner) };
  }

  /** This server's name in its fleet (undefined: a single server). */
  get fleetInstance(): string | undefined {
    return this.deps.store.fleet?.instanceId;
  }

  /** Tells the fleet (if any) where this server's HTTP API is, so the others can send commands here. */
  async advertise(url: string): Promise<void> {
    await this.deps.store.fleet?.advertise(url);
  }

  /** A session enters memory: past the cap, the least recently used idle ones leave. */
  private adopt(s: Session): void {
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
  private release(s: Session): Promise<void> {
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

  /** Whether any session runs a turn now. */
  get running(): boolean {
    for (const s of this.live.values()) if (s.status === 'running') return true;
    return false;
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

function storageError(id: string, err: unknown): FerretError {
  if (isFerretError(err)) return err;
  return new FerretError('storage', `session ${id}: its log could not be read: ${(err as Error).message}`);
}

/** A fleet server can write a session only where its workspace is (a shared volume, at the same path). */
function missingWorkspace(id: string, cwd: string, instance: string): void {
  if (!isDirectory(cwd)) {
    throw new FerretError('not_found', `session ${id}: its workspace ${cwd} does not exist on ferret instance ${instance}; the servers of a fleet need the workspaces at the same path (a shared volume)`, { workspace: cwd });
  }
}

function resolveWorkspace(cwd: string, base: string): string {
  const abs = resolve(base, cwd);
  const dir = isDirectory(abs);
  if (dir === undefined) throw new FerretError('invalid_params', `cwd: no such directory: ${abs}`, { field: 'cwd' });
  if (!dir) throw new FerretError('invalid_params', `cwd: not a directory: ${abs}`, { field: 'cwd' });
  return realpathSync(abs);
}

/** Whether p is a folder (undefined: nothing there). */
function isDirectory(p: string): boolean | undefined {
  try {
    return statSync(p).isDirectory();
  } catch {
    return undefined;
  }
}

/** A model id as a person reads it: `scripted (hello.json)`, else the id. */
function modelName(id: string): string {
  if (id.startsWith('scripted:')) return `scripted (${id.slice('scripted:'.length).split('/').pop() ?? id})`;
  return id;
}
