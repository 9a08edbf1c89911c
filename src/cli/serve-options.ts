import { z } from 'zod';
import { relayUrlProblem, storeUrlProblem } from '../core/index.js';
import { AgentFlagsSchema, FlagError, parseAgentOptions, seconds, type AgentOptions } from './agent-options.js';

export { FlagError } from './agent-options.js';

/** Flag values as cli/argv.ts parses them → validated serve options; each failure names the flag and what it accepts. */
const ServeFlagsSchema = AgentFlagsSchema.extend({
  http: z.boolean().default(false),
  port: z.string().default('5173'),
  host: z.string().default('127.0.0.1'),
  ideSchema: z.string().default('true'),
  stdio: z.boolean().default(true),
  clientTimeout: z.string().optional(),
  acpLegacy: z.boolean().default(false),
  store: z.string().optional(),
  bridge: z.string().optional(),
  idleExit: z.string().optional(),
});

export interface ServeOptions extends AgentOptions {
  http: boolean;
  port: number;
  host: string;
  ideSchema: boolean;
  stdio: boolean;
  /** ms; undefined = config.json's or 30 s. */
  clientTimeoutMs: number | undefined;
  /** ACP v1 clients get only the session updates ACP 0.4 had (--acp-legacy, FERRET_ACP_LEGACY=1). */
  acpLegacy: boolean;
  /** Fleet mode's Redis (--store, else FERRET_STORE); undefined = config.json's `store`, else files under CHIMERA_HOME. */
  store: string | undefined;
  /** The cloud bridge's relay (--bridge); undefined = config.json's `bridge.relay`, else no bridge. */
  bridge: string | undefined;
  /** ms; with --http: exit after this long with no client connected and no turn working (--idle-exit, src/cli/idle-exit.ts). */
  idleExitMs: number | undefined;
}

/** `env`: the environment's copy (FERRET_STORE, FERRET_ACP_LEGACY). */
export function parseServeOptions(raw: unknown, knownTools: readonly string[], env: NodeJS.ProcessEnv): ServeOptions {
  const f = ServeFlagsSchema.parse(raw);
  const agent = parseAgentOptions(raw, knownTools);
  const port = Number(f.port);
  if (!/^\d+$/.test(f.port) || port > 65535) throw new FlagError(`--port: "${f.port}" is not a port; expected an integer from 0 to 65535`);
  const ide = f.ideSchema.toLowerCase();
  if (ide !== 'true' && ide !== 'false') throw new FlagError(`--ide-schema: "${f.ideSchema}"; expected true or false`);
  const relayProblem = f.bridge !== undefined ? relayUrlProblem(f.bridge) : undefined;
  if (relayProblem) throw new FlagError(`--bridge: ${relayProblem}`);
  const envStore = env['FERRET_STORE'] || undefined;
  const store = f.store ?? envStore;
  const problem = store !== undefined ? storeUrlProblem(store) : undefined;
  if (problem) throw new FlagError(`${f.store !== undefined ? '--store' : 'FERRET_STORE'}: ${problem}`);
  const idleExitMs = seconds('--idle-exit', f.idleExit);
  // Clients are counted on HTTP: without it there is nothing to be idle of.
  if (idleExitMs !== undefined && !f.http) throw new FlagError('--idle-exit: needs --http (the clients it waits for connect over HTTP)');
  return {
    ...agent,
    http: f.http,
    port,
    host: f.host,
    ideSchema: ide === 'true',
    stdio: f.stdio,
    clientTimeoutMs: seconds('--client-timeout', f.clientTimeout),
    acpLegacy: f.acpLegacy || env['FERRET_ACP_LEGACY'] === '1',
    store,
    bridge: f.bridge,
    idleExitMs,
  };
}
