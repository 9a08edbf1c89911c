import { realpathSync } from 'node:fs';
import type { AuthMethod, InitializeResponse, ListSessionsResponse, PromptResponse, StopReason } from '@agentclientprotocol/sdk';
import { AgentModeSchema, ApprovalPresetSchema, ReasoningEffortSchema, type SessionHandle, type SlashCommand, type Sessions, type TurnResult } from '../../../core/index.js';
import type { Dialect, DialectContext } from '../dialect.js';
import { JSONRPC_INVALID_PARAMS, JSONRPC_METHOD_NOT_FOUND, parseParams, RpcError } from '../jsonrpc.js';
import { ACP_AUTH_REQUIRED, toAcpError, turnError, type V1ErrorContext } from './errors.js';
import { P, type ClientCaps } from './params.js';
import { promptParts } from './prompt-text.js';
import { configOptions, META_NS, sessionMeta, sessionSetup } from './session-config.js';
import { SessionLink } from './session-link.js';

/** Ferret-only methods, advertised under `agentCapabilities._meta["ferret.dev"]`. */
const EXT_METHODS = ['_ferret/setApproval', '_ferret/session/rename', '_ferret/status', '_ferret/bridgeStatus'];
/** Ferret-only notifications; a client gets those it lists in `clientCapabilities._meta["ferret.dev"].notifications`. */
const EXT_NOTIFICATIONS = [
  '_ferret/notice',
  '_ferret/turn_end',
  '_ferret/sandbox_violation',
  '_ferret/process_started',
  '_ferret/process_output',
  '_ferret/process_exited',
];

const authMethodId = (envVar: string) => `env:${envVar}`;
/** Sessions per session/list answer; the rest come with `cursor: nextCursor`. */
const LIST_PAGE = 500;

/**
 * One auth method per built-in provider key (codex-acp's `env_var` shape): the editor learns which
 * variable to set; an AuthMethodAgent in the v1 schema, with `type` and `vars` as extra fields.
 * The default model's provider comes first: clients that sign in with the first method
 * (CodeCompanion) then pick the one that matters.
 */
function authMethods(manager: Sessions): AuthMethod[] {
  const provider = manager.defaults.model.split('/')[0];
  const creds = [...manager.credentials()].sort((a, b) => Number(b.provider === provider) - Number(a.provider === provider));
  return creds.map((c) => ({
    id: authMethodId(c.envVar),
    name: `${c.provider} API key`,
    description: `Set ${c.envVar} in the environment ferret starts with (in Zed: agent_servers.ferret.env)${c.present ? '; it is set' : ''}`,
    type: 'env_var',
    vars: [{ name: c.envVar }],
  }) as AuthMethod);
}

/**
 * `authenticate`: keys come from the environment ferret starts with, so signing in is checking the
 * default model can run. Whichever method a client picks, a model that runs (a scripted one, one
 * whose key is set) answers success; else the error says what to set.
 */
function authenticate(manager: Sessions, methodId: string): Record<string, never> {
  const problem = manager.modelProblem();
  if (problem === undefined) return {};
  const c = manager.credentials().find((x) => authMethodId(x.envVar) === methodId);
  if (c && !c.present) throw new RpcError(ACP_AUTH_REQUIRED, `${c.envVar} is not set: set it in the environment ferret starts with (in Zed: agent_servers.ferret.env)`, { envVar: c.envVar });
  throw new RpcError(ACP_AUTH_REQUIRED, problem, c ? { envVar: c.envVar } : undefined);
}

function advertisedExtensions(caps: ClientCaps): Set<string> {
  const ours = caps._meta?.[META_NS];
  const asked = ours && typeof ours === 'object' ? (ours as { notifications?: unknown }).notifications : undefined;
  return new Set(Array.isArray(asked) ? EXT_NOTIFICATIONS.filter((n) => asked.includes(n)) : []);
}

/**
 * The client's id in the core (the origin of its turns, the owner of its file seam): its own, or
 * the one an earlier connection of the same client had (`_meta["ferret.dev"].continues`, which
 * that connection's initialize answer gave as `clientId`). The VS Code extension continues its
 * connection across a window reload, so a turn it started keeps writing through its review.
 */
function clientIdOf(caps: ClientCaps, connectionId: string): string {
  const ours = caps._meta?.[META_NS];
  const continues = ours && typeof ours === 'object' ? (ours as { continues?: unknown }).continues : undefined;
  if (continues === undefined) return `acp:${connectionId}`;
  if (typeof continues !== 'string' || !/^acp:[\w.~-]{1,160}$/.test(continues)) {
    throw new RpcError(JSONRPC_INVALID_PARAMS, 'Invalid params: clientCapabilities._meta["ferret.dev"].continues: expected the clientId an earlier initialize answered (acp:…)', { field: 'clientCapabilities._meta.ferret.dev.continues' });
  }
  return continues;
}

/** The client asked ferret to wait for its person's Accept/Reject on writes (client-files.ts). */
function reviewsWrites(caps: ClientCaps): boolean {
  const ours = caps._meta?.[META_NS];
  return !!ours && typeof ours === 'object' && (ours as { reviewsWrites?: unknown }).reviewsWrites === true;
}

/** `value` as one of an enum's values (a mode, an approval preset); else invalid params naming `field` and the values there are. */
function oneOf<T extends string>(schema: { readonly options: readonly T[] }, value: unknown, field: string): T {
  if (typeof value === 'string' && (schema.options as readonly string[]).includes(value)) return value as T;
  throw new RpcError(JSONRPC_INVALID_PARAMS, `Invalid params: ${field}: expected one of ${schema.options.join(', ')}`, { field });
}

/**
 * session/load and session/resume keep the roots a session was made with (session/new or
 * session/fork): a list that names other folders is refused, naming the field. Omitted or empty:
 * the session's own roots stay (the schema would activate none; ferret keeps what the log holds).
 */
function sameRoots(have: readonly string[], asked: readonly string[] | undefined): void {
  if (!asked?.length) return;
  const real = (d: string) => {
    try {
      return realpathSync(d);
    } catch {
      return d;
    }
  };
  if (asked.length === have.length && asked.every((d, i) => real(d) === have[i])) return;
  throw new RpcError(
    JSONRPC_INVALID_PARAMS,
    `Invalid params: additionalDirectories: this session's extra roots are ${JSON.stringify(have)}; they are set when it is made (session/new or session/fork) and cannot change on load`,
    { field: 'additionalDirectories' },
  );
}

const STOP: Record<Exclude<TurnResult['stopReason'], 'error'>, StopReason> = {
  end_turn: 'end_turn',
  cancelled: 'cancelled',
  max_steps: 'max_turn_requests',
  max_tokens: 'max_tokens',
  refusal: 'refusal',
};

/** Official ACP v1 (Zed, the `@agentclientprotocol/sdk` client), chosen by an integer protocolVersion. */
export function createAcpV1Dialect(ctx: DialectContext): Dialect {
  return new AcpV1Dialect(ctx);
}

class AcpV1Dialect implements Dialect {
  private readonly links = new Map<string, SessionLink>();
  private caps: ClientCaps = {};
  /** Set at initialize: this client's id in the core (its own, or the one it continues). */
  private clientId = '';

  constructor(private readonly ctx: DialectContext) {}

  async initialize(params: unknown): Promise<InitializeResponse> {
    const p = parseParams(P.initialize, params);
    this.caps = p.clientCapabilities ?? {};
    this.clientId = clientIdOf(this.caps, this.ctx.connectionId);
    return {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        // Only what ferret takes: a `false` entry is shown as supported by some clients (agent-shell).
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true, sse: true },
        // fork is the SDK's unstable method (its stable schema has no name for it yet).
        sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, additionalDirectories: {}, ...UNSTABLE_SESSION_CAPS },
        _meta: { [META_NS]: { version: this.ctx.version, sandbox: this.ctx.sandbox, methods: EXT_METHODS, notifications: EXT_NOTIFICATIONS, clientId: this.clientId } },
      },
      authMethods: authMethods(this.ctx.manager),
      agentInfo: { name: 'ferret', title: 'Ferret', version: this.ctx.version },
    };
  }

  async request(method: string, params: unknown): Promise<unknown> {
    try {
      return await this.handle(method, params);
    } catch (err) {
      throw toAcpError(err, this.errorContext());
    }
  }

  /** What a v1 error names beside the table's code: the auth methods (authentication required). */
  private errorContext(more: { sessionId?: string } = {}): V1ErrorContext {
    return { ...more, authMethods: () => authMethods(this.ctx.manager).map((m) => m.id) };
  }

  private async handle(method: string, params: unknown): Promise<unknown> {
    const m = this.ctx.manager;
    switch (method) {
      case 'authenticate':
        return authenticate(m, parseParams(P.authenticate, params).methodId);
      case 'logout':
        // The v1 schema's logout ends a login; ferret has none to end (auth.logout is not advertised).
        throw new RpcError(
          JSONRPC_METHOD_NOT_FOUND,
          'ferret has no login to log out of: its provider keys come from the environment it starts with or config.json; remove them there and restart it',
          { method },
        );
      case 'session/new': {
        const p = parseParams(P.newSession, params);
        const s = m.create({ cwd: p.cwd, additionalDirectories: p.additionalDirectories });
        this.link(s, false, p.mcpServers);
        await s.stored(); // in a fleet, another server may be asked about it next
        return { sessionId: s.id, ...sessionSetup(s, m) };
      }
      case 'session/load':
      case 'session/resume': {
        const p = parseParams(P.loadSession, params);
        const s = this.session(p.sessionId);
        sameRoots(s.state.additionalDirectories ?? [], p.additionalDirectories);
        // session/load replays the history before it answers (read from the log in chunks).
        await this.link(s, method === 'session/load', p.mcpServers).replayed;
        return sessionSetup(s, m);
      }
      case 'session/list': {
        const p = parseParams(P.listSessions, params);
        const page = await m.list({ cursor: p.cursor ?? undefined, limit: LIST_PAGE, cwd: p.cwd ?? undefined });
        // A session nobody prompted (an editor opened it and left) has nothing to resume: it has no title yet.
        const sessions = page.sessions.filter((x) => x.title !== undefined);
        return {
          ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
          sessions: sessions.map((x) => ({
            sessionId: x.sessionId,
            cwd: x.cwd,
            ...(x.title !== undefined ? { title: x.title } : {}),
            ...(x.additionalDirectories?.length ? { additionalDirectories: x.additionalDirectories } : {}),
            updatedAt: x.updatedAt,
            _meta: { [META_NS]: { model: x.model, mode: x.mode, createdAt: x.createdAt, costUsd: x.costUsd, status: x.status } },
          })),
        } satisfies ListSessionsResponse;
      }
      case 'session/close': {
        const p = parseParams(P.session, params);
        const link = this.links.get(p.sessionId);
        if (link) {
          link.cancelOwn();
          link.close();
          this.links.delete(p.sessionId);
        }
        // Nobody else using it: it leaves memory now (snapshot kept, log closed); a later load brings it back.
        if (await this.ctx.manager.has(p.sessionId)) await this.ctx.manager.close(p.sessionId);
        return {};
      }
      case 'session/fork': {
        // A new session with the source's whole turns; the client gets it as it gets a new one.
        const p = parseParams(P.forkSession, params);
        const s = await m.fork(p.sessionId, { cwd: p.cwd, additionalDirectories: p.additionalDirectories });
        this.link(s, false, p.mcpServers);
        await s.stored();
        return { sessionId: s.id, ...sessionSetup(s, m) };
      }
      case 'session/delete': {
        const p = parseParams(P.session, params);
        // Refused while a turn runs (session_busy), from whichever client: nothing is lost by asking again.
        await this.ctx.manager.delete(p.sessionId);
        const link = this.links.get(p.sessionId);
        if (link) {
          link.close();
          this.links.delete(p.sessionId);
        }
        this.commandsSent.delete(p.sessionId);
        return {};
      }
      case 'session/prompt':
        return this.prompt(params);
      case 'session/set_mode': {
        const p = parseParams(P.setMode, params);
        this.session(p.sessionId).setMode(oneOf(AgentModeSchema, p.modeId, 'modeId'));
        return {};
      }
      case 'session/set_config_option':
        return this.setConfigOption(params);
      case '_ferret/setApproval': {
        const p = parseParams(P.setApproval, params);
        return this.session(p.sessionId).setApproval(oneOf(ApprovalPresetSchema, p.preset, 'preset'));
      }
      case '_ferret/session/rename': {
        const p = parseParams(P.rename, params);
        return { title: this.session(p.sessionId).rename(p.title) };
      }
      case '_ferret/status': {
        const p = parseParams(P.session, params);
        return sessionMeta(this.session(p.sessionId), this.ctx.manager.bridgeStatus().attached)[META_NS];
      }
      case '_ferret/bridgeStatus': {
        const p = parseParams(P.session, params);
        this.session(p.sessionId);
        return this.ctx.manager.bridgeStatus();
      }
      default:
        throw new RpcError(JSONRPC_METHOD_NOT_FOUND, `Method not found: ${method}`, { method });
    }
  }

  notification(method: string, params: unknown): void {
    if (method !== 'session/cancel') return; // `$/cancel_request` and unknown `_x` notifications: nothing to abort
    const p = P.session.safeParse(params);
    if (!p.success) return;
    const link = this.links.get(p.data.sessionId);
    if (link) link.cancel();
    else this.ctx.manager.peek(p.data.sessionId)?.cancel(); // opened ahead (preload): one not in memory runs no turn
  }

  close(): void {
    for (const link of this.links.values()) link.close();
    this.links.clear();
  }

  /** What `/` menu each session was last sent: it is sent again only when the command files changed. */
  private readonly commandsSent = new Map<string, string>();

  private sendCommands(s: SessionHandle): void {
    const update = availableCommands(this.ctx.manager.slashCommands(s.state.cwd));
    const json = JSON.stringify(update);
    if (this.commandsSent.get(s.id) === json) return;
    this.commandsSent.set(s.id, json);
    this.ctx.notify('session/update', { sessionId: s.id, update });
  }

  /** Runs one turn; all of its updates are queued before this answer. `error` becomes a JSON-RPC error. */
  private async prompt(params: unknown): Promise<PromptResponse> {
    const p = parseParams(P.prompt, params);
    const link = this.linkOf(this.session(p.sessionId));
    const prompt = promptParts(p.prompt);
    const started = await link.startTurn(prompt.text, { mentions: prompt.mentions, images: prompt.images });
    if (started === 'cancelled') return { stopReason: 'cancelled' };
    const r = await started.done;
    this.sendCommands(link.session); // a turn may have added or changed the team's command files
    // A bad slash command argument is the caller's (-32602), a missing key -32000, what failed inside the turn -32603.
    if (r.stopReason === 'error') throw turnError(r, this.errorContext());
    return { stopReason: STOP[r.stopReason], _meta: { [META_NS]: { turnId: r.turnId } } };
  }

  private async setConfigOption(params: unknown): Promise<unknown> {
    const p = parseParams(P.setConfigOption, params);
    const s = this.session(p.sessionId);
    if (typeof p.value !== 'string') throw new RpcError(JSONRPC_INVALID_PARAMS, 'Invalid params: value: expected a string', { field: 'value' });
    switch (p.configId) {
      case 'mode':
        s.setMode(oneOf(AgentModeSchema, p.value, 'value'));
        break;
      case 'model':
        s.setModel(p.value);
        break;
      case 'reasoning':
        s.setReasoning(oneOf(ReasoningEffortSchema, p.value, 'value'));
        break;
      case 'approval': {
        const preset = oneOf(ApprovalPresetSchema, p.value, 'value');
        if (preset !== s.state.approval) s.setApproval(preset);
        break;
      }
      default:
        throw new RpcError(JSONRPC_INVALID_PARAMS, `Invalid params: configId: unknown option ${JSON.stringify(p.configId)}; options are mode, model, reasoning, approval`, { field: 'configId' });
    }
    return { configOptions: configOptions(s, this.ctx.manager) };
  }

  /** A live or stored session; unknown ids are ACP's -32002 with `data.sessionId`. */
  private session(id: string): SessionHandle {
    try {
      return this.ctx.manager.get(id);
    } catch (err) {
      throw toAcpError(err, this.errorContext({ sessionId: id }));
    }
  }

  /** This client's link to the session; a session handed to another process and taken back is a new handle: linked afresh. */
  private linkOf(s: SessionHandle): SessionLink {
    const have = this.links.get(s.id);
    return have && have.session === s ? have : this.link(s, false, []);
  }

  private link(s: SessionHandle, replay: boolean, mcpServers: Parameters<SessionLink['attach']>[1]): SessionLink {
    this.links.get(s.id)?.close();
    const fs = this.caps.fs;
    const link = new SessionLink(this.ctx, s, this.ctx.manager, {
      fs: { read: fs?.readTextFile === true, write: fs?.writeTextFile === true, reviewsWrites: reviewsWrites(this.caps) },
      notices: this.caps.session?.notices != null,
      compaction: this.caps.session?.compaction != null,
      extensions: advertisedExtensions(this.caps),
      terminal: this.caps.terminal === true,
      ...(this.clientId ? { clientId: this.clientId } : {}),
    });
    this.links.set(s.id, link);
    link.attach(replay, mcpServers);
    // The `/` menu, after the answer that tells the client the session id (setImmediate runs after it is sent).
    this.commandsSent.delete(s.id); // a new link (a load) gets the menu again
    setImmediate(() => this.sendCommands(s));
    return link;
  }
}

const UNSTABLE_SESSION_CAPS: Record<string, unknown> = { fork: {} };

/** The `/` menu: the built-in commands and the team's own (command files in the workspace and $CHIMERA_HOME). */
function availableCommands(commands: readonly SlashCommand[]) {
  return {
    sessionUpdate: 'available_commands_update',
    availableCommands: commands.map((c) => ({ name: c.name, description: c.description, ...(c.hint ? { input: { hint: c.hint } } : {}) })),
  } as const;
}
