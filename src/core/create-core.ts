import { join } from 'node:path';
import type { Logger } from 'pino';
import { createProviderFactories, type FactoryTuning } from '../providers/registry.js';
import { availableModels, credentials } from '../providers/catalog.js';
import { createModelResolver, pickDefaultModel } from '../providers/resolve.js';
import { isInside, type AgentMode, type ApprovalPreset, type BridgeStatus, type FerretConfig, type SandboxMode } from '../protocol/index.js';
import { adoptLiveEnviron, bashApproval, buildRuleSet, createHostFacts, loadBashParser, probeBwrap, scrubInitialEnviron, subreaperMissing, type RuleSet } from '../sandbox/index.js';
import { AuditLog } from '../store/audit-log.js';
import type { AuditStore } from '../store/audit-store.js';
import { logFds } from '../store/fd-pool.js';
import { FileSessionStore } from '../store/file-store.js';
import { auditFile, chimeraHome, ensureHome, ferretDir } from '../store/paths.js';
import type { SessionStore } from '../store/session-store.js';
import { createMcpPool } from '../tools/mcp-pool.js';
import type { ToolRegistry } from '../tools/registry.js';
import { loadConfig, mcpSpecs } from './config-file.js';
import type { SessionFold } from './folds.js';
import type { SessionDefaults, Sessions } from './api.js';
import type { Fleet } from './fleet/fleet.js';
import { LocalOpener } from './sessions/local-opener.js';
import { DEFAULT_LIMITS, SessionManager, type SessionLimits } from './sessions/session-manager.js';
import type { TurnActivity } from './sessions/turn-activity.js';
import { DEFAULT_TOOL_OUTPUT_CAP } from './tool-call/output-cap.js';
import { toolSpec } from './tool-runner.js';
import type { SessionDeps } from './turn-host.js';
import { Warmer, type WarmStep } from './warm-up.js';

/**
 * Model calls one turn may make before it ends with stop reason `max_steps` (ACP v1
 * `max_turn_requests`), unless config.json's `maxSteps` says otherwise. Real tasks (fix a failing
 * CI job, a change across a repository) take one to two hundred calls of read, edit, run tests;
 * 300 lets them finish and still stops a model that loops before it spends without end.
 */
export const DEFAULT_MAX_STEPS = 300;

export interface CoreOptions {
  logger: Logger;
  /** Workspace of sessions created without a cwd. */
  cwd: string;
  sandbox: SandboxMode;
  approval: ApprovalPreset;
  /** --model; else FERRET_MODEL, config.json, or a provider whose key is set. */
  model?: string | undefined;
  mode?: AgentMode;
  allowedTools?: readonly string[] | undefined;
  /**
   * The environment, as data (the CLI reads it once; tests pass `{}`): provider keys,
   * FERRET_MODEL, FERRET_SESSION_IDLE_MS, FERRET_MAX_LIVE_SESSIONS, CHIMERA_HOME when `home` is
   * not given, and what commands may see of it (the sandbox's allowlist picks).
   */
  env: NodeJS.ProcessEnv;
  /**
   * The process's own environment object (the CLI passes process.env), whose secret-looking
   * values the warm-up scrubs from /proc/<pid>/environ; absent in tests that build a core in-process.
   */
  liveEnviron?: NodeJS.ProcessEnv;
  /** Default CHIMERA_HOME from env, else ~/.chimera. */
  home?: string;
  /** Default: $CHIMERA_HOME/ferret/config.json (absent is fine, malformed throws naming the field). */
  config?: FerretConfig;
  /** --permission-timeout: deny a permission question nobody answered in this time (default: wait for a person). */
  permissionTimeoutMs?: number | undefined;
  /** How long an editor has to answer a file request; default config.json's, else 10 s (under the 20 s some clients give a prompt). */
  clientRequestTimeoutMs?: number | undefined;
  /** Provider retry and timeout knobs, for tests. */
  tuning?: FactoryTuning;
  /** Folds kept at every seq in the log's checkpoints (the CLI registers the SSE IDE-frame translator's). */
  folds?: readonly SessionFold[];
  /** How long idle sessions stay in memory; default FERRET_SESSION_IDLE_MS / FERRET_MAX_LIVE_SESSIONS, config.json's, else 10 min and 1024. */
  limits?: Partial<SessionLimits>;
  /** Descriptors the process's session logs may hold at once (FERRET_MAX_OPEN_LOGS); default a quarter of the open-file limit. */
  maxOpenLogs?: number;
  /** Where sessions are kept (default: files under CHIMERA_HOME). */
  store?: SessionStore;
  /** Fleet mode: the fleet this server joins (connectFleetStore builds it with the Redis store). */
  fleet?: Fleet | undefined;
  /** Where permission decisions are kept (default: CHIMERA_HOME/ferret/audit.jsonl); fleet mode passes the Redis one with its store. */
  audit?: AuditStore;
  /** Warm the first tool call's dependencies when the server is quiet (default true). */
  warm?: boolean;
  /** Steps the host adds at the end of that warm-up (the CLI keeps its compiled code then). */
  warmSteps?: readonly WarmStep[];
}

export interface CoreSettings {
  /** How long an editor has to answer a file request before the tool call fails (default 30 s). */
  clientRequestTimeoutMs: number;
}

/** The whole core, built once; transports reach it through `manager` and the session handles. */
export interface Core {
  readonly manager: Sessions;
  readonly home: string;
  readonly defaults: SessionDefaults;
  /** Settings the transports apply (from config.json or flags). */
  readonly settings: CoreSettings;
  /** Where `bridgeStatus()` reads the cloud bridge's state from (the CLI starts the bridge after the core). */
  reportBridge(source: () => BridgeStatus): void;
  /** Whether a session this process holds runs a turn now (serve --idle-exit waits for it). */
  readonly running: boolean;
  /** What the running turns do: none, all wait on a person, or one works (serve --idle-exit). */
  readonly turnActivity: TurnActivity;
  /** Stops every running turn as a person's Stop would, with `why` as a notice in each session first. */
  stopTurns(why: string): number;
  /** Cancels running turns, flushes every log, closes MCP servers. */
  close(): Promise<void>;
}

/** The core as its own tests see it: the session table itself, its sessions with their insides. */
export interface CoreInternals extends Core {
  readonly manager: SessionManager;
}

/** Builds providers, tools, rules, audit, the MCP pool and the session manager from config and env. */
export function createCore(opts: CoreOptions): CoreInternals {
  const env = opts.env;
  if (opts.liveEnviron) adoptLiveEnviron(opts.liveEnviron);
  if (opts.maxOpenLogs !== undefined) logFds.setMax(opts.maxOpenLogs);
  const home = opts.home ?? chimeraHome(env);
  const config = opts.config ?? loadConfig(home);
  // ferret's own state (CHIMERA_HOME) protected from every tool (file tools refuse it, commands
  // do not see it), and config.json's env.pass given to commands: the sandbox's facts for this server.
  const sandbox = createHostFacts({ env, stateRoots: [home], commandEnvPass: config.env?.pass ?? [], ...(config.search?.engine ? { searchEngine: config.search.engine } : {}), ...sandboxChoices(config.sandbox), ...(config.webFetch ? { web: { allowDomains: config.webFetch.allowDomains ?? [], allowPrivate: config.webFetch.allowPrivate ?? false } } : {}) });
  guardState(home, opts.logger);
  const permissionTimeoutMs = opts.permissionTimeoutMs ?? config.permissionTimeoutMs;
  const tools = lazyTools(opts.allowedTools);
  const rules = lazyRules(config.rules);
  const store = opts.store ?? new FileSessionStore(home);
  const deps: SessionDeps = {
    home,
    store,
    ...(opts.folds ? { folds: opts.folds } : {}),
    resolver: createModelResolver(createProviderFactories(config, env, opts.tuning)),
    get tools() {
      return tools.get();
    },
    loadTools: () => tools.load(),
    get rules() {
      return rules();
    },
    audit:
      opts.audit ??
      new AuditLog(
        auditFile(home),
        (r) => opts.logger.warn({ file: r.file, lines: r.lines, sample: r.sample }, 'audit log lines failed their integrity check and were ignored'),
        (err) => opts.logger.error({ err }, 'audit log write failed'),
      ),
    logger: opts.logger,
    env,
    sandbox,
    maxSteps: config.maxSteps ?? DEFAULT_MAX_STEPS,
    toolOutputCap: config.outputCapBytes ?? config.toolOutputCapBytes ?? DEFAULT_TOOL_OUTPUT_CAP,
    keptOutputDir: (id) => keptOutputDir(home, store, id),
    checkpointDir: (id) => checkpointDir(home, store, id),
    checkpointPacks: join(ferretDir(home), 'undo-packs'),
    mcp: createMcpPool(mcpSpecs(config), opts.logger),
    catalog: { models: () => availableModels(config, env), credentials: () => credentials(env) },
    ...(permissionTimeoutMs !== undefined ? { permissionTimeoutMs } : {}),
    ...(config.instructionFiles ? { instructionFiles: config.instructionFiles } : {}),
    ...(config.editTools ? { editTools: config.editTools } : {}),
  };
  const defaults: SessionDefaults = {
    cwd: opts.cwd,
    model: pickDefaultModel({ flag: opts.model, env, configModel: config.model }),
    mode: opts.mode ?? 'code',
    sandbox: opts.sandbox,
    approval: opts.approval,
    reasoning: config.reasoning,
  };
  const local = new LocalOpener(deps, defaults.sandbox);
  // A fleet decides per session whether this server writes it or follows the one that does.
  const source = opts.fleet ? opts.fleet.source(deps, local, defaults.sandbox) : local;
  const manager = new SessionManager(deps, defaults, local, source, sessionLimits(opts.limits, config, env));
  opts.fleet?.serve(manager, deps.logger);
  const warmer = opts.warm === false ? undefined : startWarmer(manager, deps, opts.sandbox, opts.warmSteps ?? []);
  if (opts.sandbox === 'danger-full-access') {
    // Commands run on the host: without the subreaper, one that leaves its group and clears its environment can outlive its call.
    const missing = subreaperMissing(sandbox, env['PATH']);
    if (missing) opts.logger.warn({ reason: missing }, 'commands run without the subreaper: a process that leaves its command (env -i setsid) can outlive it where no cgroup holds it');
  }
  let closing: Promise<void> | undefined;
  return {
    manager,
    home,
    defaults,
    settings: { clientRequestTimeoutMs: opts.clientRequestTimeoutMs ?? config.clientRequestTimeoutMs ?? 10_000 },
    reportBridge: (source) => manager.reportBridge(source),
    get running() {
      return manager.running;
    },
    get turnActivity() {
      return manager.turnActivity;
    },
    stopTurns: (why) => manager.stopTurns(why),
    close: () =>
      (closing ??= (async () => {
        warmer?.stop();
        await manager.shutdown();
        // The file log writes at once; a shared one (Redis) is given a moment, and its store's close bounds the rest.
        const flushed = deps.audit.flush();
        if (flushed) await within(flushed, 2000);
        await deps.mcp?.close().catch((err: unknown) => opts.logger.error({ err }, 'closing MCP servers failed'));
      })()),
  };
}

/**
 * A session's folder of kept tool output: in its own folder when the store keeps one under this
 * server's CHIMERA_HOME (so it is ferret's protected state, and goes with the session's folder);
 * else (Redis, a store elsewhere) under CHIMERA_HOME/ferret/tool-output/<id>, on this machine.
 */
function keptOutputDir(home: string, store: SessionStore, id: string): string {
  const own = store.localFolder(id);
  return own !== undefined && isInside(home, own) ? join(own, 'tool-output') : join(ferretDir(home), 'tool-output', id);
}

/** A session's shadow repository of snapshots: beside its log when the store keeps a folder here, like kept output. */
function checkpointDir(home: string, store: SessionStore, id: string): string {
  const own = store.localFolder(id);
  return own !== undefined && isInside(home, own) ? join(own, 'undo') : join(ferretDir(home), 'undo', id);
}

/** Waits for `p`, at most `ms`. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => undefined), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/**
 * The built-in tools load on first use (the first turn, or the idle warm-up), not at start-up:
 * with them come the bash classifier, its WASM shell parser and the file tools, none of which an
 * editor's initialize → session/new needs.
 */
function lazyTools(allowed: readonly string[] | undefined): { get(): ToolRegistry; load(): Promise<ToolRegistry> } {
  let registry: ToolRegistry | undefined;
  let loading: Promise<ToolRegistry> | undefined;
  return {
    get(): ToolRegistry {
      if (!registry) throw new Error('the tools are not loaded yet: await deps.loadTools() first');
      return registry;
    },
    load: () =>
      (loading ??= import('../tools/registry.js').then(({ BUILTIN_TOOLS, ToolRegistry }) => (registry = new ToolRegistry(BUILTIN_TOOLS, allowed)))),
  };
}

/**
 * config.json's own rules are parsed now (a bad one stops start-up, naming it); the set with the
 * built-in rules is parsed on first use (the first tool call, or the warm-up): 1–3 ms an editor's
 * `initialize` does not need.
 */
function lazyRules(lists: FerretConfig['rules']): () => RuleSet {
  buildRuleSet(lists, false);
  let set: RuleSet | undefined;
  return () => (set ??= buildRuleSet(lists));
}

function sessionLimits(given: Partial<SessionLimits> | undefined, config: FerretConfig, env: NodeJS.ProcessEnv): SessionLimits {
  const num = (v: string | undefined) => (v !== undefined && v !== '' && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : undefined);
  return {
    idleMs: given?.idleMs ?? num(env['FERRET_SESSION_IDLE_MS']) ?? (config.sessionIdleSeconds !== undefined ? config.sessionIdleSeconds * 1000 : DEFAULT_LIMITS.idleMs),
    maxLive: given?.maxLive ?? num(env['FERRET_MAX_LIVE_SESSIONS']) ?? config.maxLiveSessions ?? DEFAULT_LIMITS.maxLive,
    ...(given?.lruGraceMs !== undefined ? { lruGraceMs: given.lruGraceMs } : {}),
  };
}

/**
 * What the first tool call of a process would otherwise wait for, loaded when the server is
 * quiet: the tools and the schemas the model is offered, the command helper process, the shell parser (WASM) and the classifier's
 * code, the bubblewrap probe, one confined `true` in a scratch folder, the session index, the
 * audit log. Each step is what the real call
 * awaits too (cached), so nothing runs twice.
 */
function startWarmer(manager: SessionManager, deps: SessionDeps, sandbox: SandboxMode, extra: readonly WarmStep[]): Warmer {
  const steps: WarmStep[] = [
    { name: 'tools', run: () => deps.loadTools?.() ?? Promise.resolve() },
    // Each tool's JSON schema, and its zod schema's first parse (zod compiles a fast path then).
    { name: 'tool schemas', run: async () => void deps.tools.list().map((t) => (toolSpec(t), t.schema.safeParse({}))) },
    { name: 'command helper', run: async () => (await import('../tools/spawner.js')).warmSpawner(deps.env) },
    { name: 'shell parser', run: () => loadBashParser() },
    { name: 'bash classifier', run: () => bashApproval('ls -la | head -n 3', deps.rules) },
    ...(sandbox !== 'danger-full-access' ? [{ name: 'bubblewrap probe', run: async () => probeBwrap(deps.sandbox, (await import('../tools/spawner.js')).execInHelper) }] : []),
    { name: 'bash rehearsal', run: async () => (await import('../tools/bash-rehearsal.js')).rehearseBash(sandbox, deps.sandbox) },
    { name: 'session index', run: () => deps.store.listMetas({ limit: 1 }) },
    { name: 'audit log', run: () => deps.audit.prepare() },
    ...extra,
  ];
  const t0 = Date.now();
  const warmer = new Warmer(
    steps,
    () => manager.running,
    150,
    (step, err) => deps.logger.debug({ err, step }, 'warm-up step failed'),
    () => deps.logger.info({ ms: Date.now() - t0 }, 'warmed up'),
  );
  manager.onActivity = () => warmer.poke();
  warmer.poke();
  return warmer;
}

/**
 * ferret's own state, before any tool runs: CHIMERA_HOME made owner-only; secrets overwritten in
 * this process's initial environment block.
 */
function guardState(home: string, logger: Logger): void {
  // Off the start-up path, and still long before any command or MCP server can start (that needs a
  // turn). Two hops: the answer to input already waiting (an editor's `initialize`) is queued in
  // the first check phase, and goes out before this runs.
  setImmediate(() => setImmediate(() => {
    try {
      ensureHome(home);
    } catch (err) {
      logger.warn({ err, home }, 'cannot prepare CHIMERA_HOME');
    }
    const scrub = scrubInitialEnviron();
    if (scrub.error) logger.debug({ error: scrub.error }, 'secrets stay readable in /proc/<pid>/environ');
  }));
}

/** config.json's sandbox choices, as HostFacts options (absent ones keep their defaults). */
function sandboxChoices(c: { readOutside?: 'ask' | 'allow' | undefined; unixSockets?: 'block' | 'allow' | undefined } | undefined) {
  return { ...(c?.readOutside ? { readOutside: c.readOutside } : {}), ...(c?.unixSockets ? { unixSockets: c.unixSockets } : {}) };
}
