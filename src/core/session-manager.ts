import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { readEventLog, repairTail } from '../store/event-log.js';
import { eventsFile } from '../store/paths.js';
import { listStoredSessionIds, readMeta } from '../store/session-meta.js';
import { FerretError, SESSION_ID_PATTERN, type AgentMode, type ApprovalPreset, type SandboxMode, type SessionSummary } from '../protocol/index.js';
import type { Credential, ModelChoice } from '../providers/catalog.js';
import { NO_MODEL } from '../providers/resolve.js';
import { checkModel } from './model-check.js';
import { Session } from './session.js';
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


/** Owns every session of the server; sessions belong to it, not to a connection. */
export class SessionManager {
  private readonly live = new Map<string, Session>();

  constructor(
    readonly deps: SessionDeps,
    readonly defaults: SessionDefaults,
  ) {}

  create(opts: NewSessionOptions = {}): Session {
    const cwd = resolveWorkspace(opts.cwd ?? this.defaults.cwd, this.defaults.cwd);
    const model = opts.model ?? this.defaults.model;
    // A typo, a missing key or a malformed scripted file: refuse now, naming the field.
    if (opts.model !== undefined || model.startsWith('scripted:')) checkModel(this.deps.resolver, model, cwd);
    const id = randomUUID();
    let session: Session;
    try {
      session = new Session(id, this.deps);
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
    session.saveMeta();
    this.live.set(id, session);
    return session;
  }

  /** A live session, or one loaded from its log (a new process continuing an old session). */
  get(id: string): Session {
    const s = this.live.get(id);
    if (s) return s;
    return this.load(id);
  }

  has(id: string): boolean {
    return this.live.has(id) || (SESSION_ID_PATTERN.test(id) && existsSync(eventsFile(this.deps.home, id)));
  }

  private load(id: string): Session {
    if (!SESSION_ID_PATTERN.test(id)) throw new FerretError('session_not_found', `no session ${JSON.stringify(id)}`, { field: 'sessionId' });
    const file = eventsFile(this.deps.home, id);
    if (!existsSync(file)) throw new FerretError('session_not_found', `no session ${id}`, { field: 'sessionId' });
    const read = readEventLog(file);
    if (read.events[0]?.type !== 'session_created') {
      throw new FerretError('storage', `session ${id}: its log does not start with session_created`);
    }
    // Sandbox is fixed per server: a loaded session runs under this server's mode.
    const session = new Session(id, this.deps, read.events, this.defaults.sandbox); // takes the session's lock first
    repairTail(file, read);
    if (read.tornTail || read.badLines) {
      this.deps.logger.warn({ sessionId: id, tornTail: read.tornTail, badLines: read.badLines }, 'session log was damaged; loaded what was whole');
      session.emit({
        type: 'notice',
        data: {
          level: 'warning',
          text: `the session log was damaged (${read.tornTail ? 'a torn last line' : ''}${read.tornTail && read.badLines ? ', ' : ''}${read.badLines ? `${read.badLines} bad lines` : ''}); everything before it was restored`,
        },
      });
    }
    this.live.set(id, session);
    return session;
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

  list(): SessionSummary[] {
    const out: SessionSummary[] = [...this.live.values()].map((s) => s.summary());
    for (const id of listStoredSessionIds(this.deps.home)) {
      if (this.live.has(id)) continue;
      const m = readMeta(this.deps.home, id);
      if (m) out.push({ ...m, status: 'idle', live: false });
    }
    return out.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }

  /** Graceful stop: cancel running turns, wait for them, flush and close every log. */
  async shutdown(): Promise<void> {
    const all = [...this.live.values()];
    for (const s of all) s.cancel();
    await Promise.all(all.map((s) => s.settled()));
    for (const s of all) {
      s.saveMeta();
      s.close();
    }
  }
}

function resolveWorkspace(cwd: string, base: string): string {
  const abs = resolve(base, cwd);
  let st;
  try {
    st = statSync(abs);
  } catch {
    throw new FerretError('invalid_params', `cwd: no such directory: ${abs}`, { field: 'cwd' });
  }
  if (!st.isDirectory()) throw new FerretError('invalid_params', `cwd: not a directory: ${abs}`, { field: 'cwd' });
  return realpathSync(abs);
}

/** A model id as a person reads it: `scripted (hello.json)`, else the id. */
function modelName(id: string): string {
  if (id.startsWith('scripted:')) return `scripted (${id.slice('scripted:'.length).split('/').pop() ?? id})`;
  return id;
}
