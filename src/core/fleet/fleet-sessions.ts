import { FerretError, isFerretError, type SandboxMode } from '../../protocol/index.js';
import type { FleetSeam } from '../../store/session-store.js';
import { SessionBody } from '../session/session-body.js';
import type { LiveSession } from '../sessions/live-session.js';
import { storageError, type LocalOpener } from '../sessions/local-opener.js';
import { loadSession, type Loaded } from '../sessions/session-load.js';
import type { SessionSource } from '../sessions/session-source.js';
import type { SessionDeps } from '../turn-host.js';
import { isDirectory } from '../workspace.js';
import type { Fleet } from './fleet.js';
import { FollowedSession } from './followed-session.js';
import { RemoteSession } from './remote-session.js';
import { servedCall } from './served-calls.js';

/** Who a follower follows when no server writes the session (its writer stopped, or let it go). */
const NO_WRITER = 'none (no server writes it now)';

/** The core's side of a fleet: loaded with the Redis store (connectFleetStore), never by a single server. */
export function joinFleet(seam: FleetSeam): Fleet {
  return {
    instanceId: seam.instanceId,
    source: (deps, local, sandbox) => new FleetSource(deps, local, seam, sandbox),
    serve: (sessions) => seam.serve((call) => servedCall(sessions, seam.instanceId, call)),
  };
}

/**
 * The one place a fleet server decides what a session id gets: the owner lookup (its lease),
 * then write it here (a LocalSession, its lease taken) or follow the server that writes it (a
 * RemoteSession behind a FollowedSession); and, when a followed session's writer is gone, the
 * takeover at the next command.
 */
class FleetSource implements SessionSource {
  constructor(
    private readonly deps: SessionDeps,
    private readonly local: LocalOpener,
    private readonly fleet: FleetSeam,
    private readonly sandbox: SandboxMode,
  ) {}

  get instance(): string {
    return this.fleet.instanceId;
  }

  async open(id: string, write: boolean): Promise<LiveSession> {
    const fleet = this.fleet;
    // A session another live server writes is followed here, its commands sent there.
    const owner = await fleet.ownerOf(id);
    if (owner !== undefined && owner !== fleet.instanceId) return this.follow(id, owner);
    // A read of a session no server writes now: followed, not taken (the next command takes it).
    if (owner === undefined && !write) return this.follow(id, NO_WRITER);
    try {
      return await this.local.open(id, true, (loaded: Loaded) => missingWorkspace(id, loaded.state.cwd, fleet.instanceId));
    } catch (err) {
      // Another fleet server took the lease first: follow it.
      const other = isFerretError(err) && err.code === 'session_busy' ? err.data?.['owner'] : undefined;
      if (typeof other === 'string' && other !== fleet.instanceId) return this.follow(id, other);
      throw err;
    }
  }

  /** A session another fleet server writes: loaded read-only from the shared store, then following its writer. */
  private async follow(id: string, owner: string): Promise<FollowedSession> {
    const log = await this.fleet.openFollower(id, owner);
    let loaded: Loaded;
    try {
      loaded = await loadSession(id, log, this.deps.folds ?? []);
    } catch (err) {
      log.close();
      throw storageError(id, err);
    }
    return new FollowedSession(new RemoteSession(new SessionBody(id, this.deps, log, loaded, this.sandbox), log, this.fleet));
  }

  stale(s: LiveSession): boolean {
    return s instanceof FollowedSession && s.writtenBy !== undefined;
  }

  /**
   * A followed session whose writer is gone (its lease ran out) becomes written here: the lease
   * taken, the turn it left unfinished ended as interrupted. Another server that took it first
   * becomes the one followed instead. A read only catches up.
   */
  async revisit(s: LiveSession, write: boolean): Promise<LiveSession> {
    const fleet = this.fleet;
    if (!(s instanceof FollowedSession)) return s;
    const was = s.writtenBy;
    if (was === undefined) return s;
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
  async forwardTarget(s: LiveSession | undefined): Promise<{ instance: string; url: string | undefined } | undefined> {
    const owner = s instanceof FollowedSession ? s.writtenBy : undefined;
    if (owner === undefined) return undefined;
    return { instance: owner, url: await this.fleet.addressOf(owner) };
  }
}

/** A fleet server can write a session only where its workspace is (a shared volume, at the same path). */
function missingWorkspace(id: string, cwd: string, instance: string): void {
  if (!isDirectory(cwd)) {
    throw new FerretError('not_found', `session ${id}: its workspace ${cwd} does not exist on ferret instance ${instance}; the servers of a fleet need the workspaces at the same path (a shared volume)`, { workspace: cwd });
  }
}
