import { chimeraHome } from '../protocol/paths.js';
import type { HttpServerOptions } from '../transports/http/server.js';

/**
 * What ferret takes from its environment, read once, here: the rest of src/ may not read
 * process.env (an eslint rule), so every value reaches the core through createCore's options
 * and the transports through their start options.
 */
export interface Environment {
  /**
   * A copy of the whole environment: provider keys, FERRET_MODEL, FERRET_SESSION_IDLE_MS and
   * FERRET_MAX_LIVE_SESSIONS for the core, and what commands may be given (the sandbox's
   * allowlist picks from it). A copy: process.env goes through the C++ environ on every access,
   * and every command reads all of it.
   */
  vars: NodeJS.ProcessEnv;
  /** The process's own environment object (not a copy): only for the scrub of /proc/<pid>/environ. */
  live: NodeJS.ProcessEnv;
  /** CHIMERA_HOME, else ~/.chimera. */
  home: string;
  /** FERRET_LOG_LEVEL; undefined = the command's default. */
  logLevel: string | undefined;
  /** FERRET_SERVER_TOKEN: the Bearer token for HTTP. */
  serverToken: string | undefined;
  /** FERRET_PUSH_SUBJECT: VAPID's contact (mailto: or https:) sent to push services with Web Push. */
  pushSubject: string | undefined;
  /** FERRET_FLEET_SECRET: what the servers of a fleet share to trust each other's messages in Redis (config.json `fleet.secret` otherwise). */
  fleetSecret: string | undefined;
  /** FERRET_LEASE_TTL_MS (300 or more). */
  leaseTtlMs: number | undefined;
  /** FERRET_MAX_OPEN_LOGS: descriptors the session logs may hold. */
  maxOpenLogs: number | undefined;
  /** The HTTP transport's knobs (FERRET_SSE_*, FERRET_HTTP_*), as startHttpServer takes them. */
  http: HttpTuning;
}

export type HttpTuning = Pick<HttpServerOptions, 'heartbeatMs' | 'maxBufferBytes' | 'stallMs' | 'retryMs' | 'headersTimeoutMs' | 'requestTimeoutMs'>;

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const vars = { ...env };
  const positive = (name: string): number | undefined => {
    const v = Number(vars[name]);
    return Number.isFinite(v) && v > 0 ? v : undefined;
  };
  const leaseTtl = Number(vars['FERRET_LEASE_TTL_MS']);
  const maxOpenLogs = positive('FERRET_MAX_OPEN_LOGS');
  const http: HttpTuning = {};
  const knob = (key: keyof HttpTuning, name: string) => {
    const v = positive(name);
    if (v !== undefined) http[key] = v;
  };
  knob('heartbeatMs', 'FERRET_SSE_HEARTBEAT_MS');
  knob('maxBufferBytes', 'FERRET_SSE_MAX_BUFFER');
  knob('stallMs', 'FERRET_SSE_STALL_MS');
  knob('retryMs', 'FERRET_SSE_RETRY_MS');
  knob('headersTimeoutMs', 'FERRET_HTTP_HEADERS_TIMEOUT_MS');
  knob('requestTimeoutMs', 'FERRET_HTTP_REQUEST_TIMEOUT_MS');
  return {
    vars,
    live: env,
    home: chimeraHome(vars),
    logLevel: vars['FERRET_LOG_LEVEL'],
    serverToken: vars['FERRET_SERVER_TOKEN'] || undefined,
    pushSubject: vars['FERRET_PUSH_SUBJECT'] || undefined,
    fleetSecret: vars['FERRET_FLEET_SECRET'] || undefined,
    leaseTtlMs: Number.isFinite(leaseTtl) && leaseTtl >= 300 ? leaseTtl : undefined,
    maxOpenLogs: maxOpenLogs !== undefined && Number.isInteger(maxOpenLogs) ? maxOpenLogs : undefined,
    http,
  };
}
