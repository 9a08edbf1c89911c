import type { Logger } from 'pino';
import { createProviderFactories, type FactoryTuning } from '../providers/registry.js';
import { availableModels, credentials } from '../providers/catalog.js';
import { createModelResolver, pickDefaultModel } from '../providers/resolve.js';
import type { AgentMode, ApprovalPreset, FerretConfig, SandboxMode } from '../protocol/index.js';
import { buildRuleSet } from '../sandbox/rules.js';
import { AuditLog } from '../store/audit-log.js';
import { auditFile, chimeraHome } from '../store/paths.js';
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
  const permissionTimeoutMs = opts.permissionTimeoutMs ?? config.permissionTimeoutMs;
  const deps: SessionDeps = {
    home,
    resolver: createModelResolver(createProviderFactories(config, env, opts.tuning)),
    tools: new ToolRegistry(BUILTIN_TOOLS, opts.allowedTools),
    rules: buildRuleSet(config.rules),
    audit: new AuditLog(auditFile(home)),
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
