import type { Logger } from 'pino';
import { createProviderFactories, type FactoryTuning } from '../providers/registry.js';
import { availableModels, credentials } from '../providers/catalog.js';
import { createModelResolver, pickDefaultModel } from '../providers/resolve.js';
import type { AgentMode, ApprovalPreset, FerretConfig, SandboxMode } from '../protocol/index.js';
import { passCommandEnv } from '../sandbox/confine.js';
import { scrubInitialEnviron } from '../sandbox/environ.js';
import { buildRuleSet } from '../sandbox/rules.js';
import { protectStateRoot } from '../sandbox/state-roots.js';
import { AuditLog } from '../store/audit-log.js';
import { auditFile, chimeraHome, ensureHome } from '../store/paths.js';
import { createMcpPool } from '../tools/mcp-pool.js';
import { BUILTIN_TOOLS, ToolRegistry } from '../tools/registry.js';
import { loadConfig, mcpSpecs } from './config-file.js';
import { SessionManager, type SessionDefaults } from './session-manager.js';
import { DEFAULT_TOOL_OUTPUT_CAP } from './tool-call/output-cap.js';
import type { SessionDeps } from './turn-host.js';

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
  /** Default process.env: where keys, FERRET_MODEL and CHIMERA_HOME are read. */
  env?: NodeJS.ProcessEnv;
  /** Default CHIMERA_HOME from env. */
  home?: string;
  /** Default: $CHIMERA_HOME/ferret/config.json (absent is fine, malformed throws naming the field). */
  config?: FerretConfig;
  /** --permission-timeout: deny a permission question nobody answered in this time (default: wait for a person). */
  permissionTimeoutMs?: number | undefined;
  /** How long an editor has to answer a file request; default config.json's, else 30 s. */
  clientRequestTimeoutMs?: number | undefined;
  /** Provider retry and timeout knobs, for tests. */
  tuning?: FactoryTuning;
}

export interface CoreSettings {
  /** How long an editor has to answer a file request before the tool call fails (default 30 s). */
  clientRequestTimeoutMs: number;
}

/** The whole core, built once; transports reach it through `manager` and the session handles. */
export interface Core {
  readonly manager: SessionManager;
  readonly home: string;
  readonly defaults: SessionDefaults;
  /** Settings the transports apply (from config.json or flags). */
  readonly settings: CoreSettings;
  /** Cancels running turns, flushes every log, closes MCP servers. */
  close(): Promise<void>;
}

/** Builds providers, tools, rules, audit, the MCP pool and the session manager from config and env. */
export function createCore(opts: CoreOptions): Core {
  const env = opts.env ?? process.env;
  const home = opts.home ?? chimeraHome(env);
  const config = opts.config ?? loadConfig(home);
  guardState(home, config, opts.logger);
  const permissionTimeoutMs = opts.permissionTimeoutMs ?? config.permissionTimeoutMs;
  const deps: SessionDeps = {
    home,
    resolver: createModelResolver(createProviderFactories(config, env, opts.tuning)),
    tools: new ToolRegistry(BUILTIN_TOOLS, opts.allowedTools),
    rules: buildRuleSet(config.rules),
    audit: new AuditLog(auditFile(home), (r) =>
      opts.logger.warn({ file: r.file, lines: r.lines, sample: r.sample }, 'audit log lines failed their integrity check and were ignored'),
    ),
    logger: opts.logger,
    env,
    maxSteps: config.maxSteps ?? 50,
    toolOutputCap: config.toolOutputCapBytes ?? DEFAULT_TOOL_OUTPUT_CAP,
    mcp: createMcpPool(mcpSpecs(config), opts.logger),
    catalog: { models: () => availableModels(config, env), credentials: () => credentials(env) },
    ...(permissionTimeoutMs !== undefined ? { permissionTimeoutMs } : {}),
  };
  const defaults: SessionDefaults = {
    cwd: opts.cwd,
    model: pickDefaultModel({ flag: opts.model, env, configModel: config.model }),
    mode: opts.mode ?? 'code',
    sandbox: opts.sandbox,
    approval: opts.approval,
  };
  const manager = new SessionManager(deps, defaults);
  let closing: Promise<void> | undefined;
  return {
    manager,
    home,
    defaults,
    settings: { clientRequestTimeoutMs: opts.clientRequestTimeoutMs ?? config.clientRequestTimeoutMs ?? 30_000 },
    close: () =>
      (closing ??= (async () => {
        await manager.shutdown();
        await deps.mcp?.close().catch((err: unknown) => opts.logger.error({ err }, 'closing MCP servers failed'));
      })()),
  };
}

/**
 * ferret's own state, before any tool runs: CHIMERA_HOME made owner-only and protected from
 * every tool (file tools refuse it, commands do not see it); config.json's env.pass registered
 * for commands; secrets overwritten in this process's initial environment block.
 */
function guardState(home: string, config: FerretConfig, logger: Logger): void {
  protectStateRoot(home);
  passCommandEnv(config.env?.pass ?? []);
  // Off the start-up path, and still long before any command or MCP server can start (that needs a turn).
  setImmediate(() => {
    try {
      ensureHome(home);
    } catch (err) {
      logger.warn({ err, home }, 'cannot prepare CHIMERA_HOME');
    }
    const scrub = scrubInitialEnviron();
    if (scrub.error) logger.debug({ error: scrub.error }, 'secrets stay readable in /proc/<pid>/environ');
  });
}
