// config.json's shape: the one schema the file is validated with at start-up.
import { z } from 'zod';
import { relayUrlProblem } from './bridge.js';
import { lazySchema } from './lazy-schema.js';
import { PricingSchema, ReasoningEffortSchema } from './types.js';

const ModelEntrySchema = lazySchema(() =>
  z.object({
    contextWindow: z.number().int().positive().optional(),
    pricing: PricingSchema.partial().optional(),
    /** The model sees images (default: OpenAI and Anthropic models do, others only when the name says so: docs/providers.md). */
    vision: z.boolean().optional(),
  }),
);

export const ProviderConfigSchema = lazySchema(() =>
  z.object({
    type: z.enum(['openai', 'anthropic', 'ollama', 'openai-compatible']),
    baseURL: z.string().url().optional(),
    apiKey: z.string().optional(),
    models: z.record(z.string(), ModelEntrySchema).optional(),
  }),
);

const McpServerConfigSchema = lazySchema(() =>
  z.union([
    z.object({
      command: z.string().min(1),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
      cwd: z.string().optional(),
    }),
    z.object({
      url: z.string().url(),
      type: z.enum(['http', 'sse']).default('http'),
      headers: z.record(z.string(), z.string()).default({}),
    }),
  ]),
);

/** Why a fleet store URL is not `redis://[user:password@]HOST[:PORT][/DB]` (rediss:// for TLS), or undefined when it is. */
export function storeUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `not a URL: ${JSON.stringify(url)} (expected redis://HOST:PORT/DB)`;
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') return `${u.protocol}// is not a Redis URL (expected redis://HOST:PORT/DB)`;
  if (!u.hostname) return `${JSON.stringify(url)} names no host (expected redis://HOST:PORT/DB)`;
  if (!/^\/?\d*$/.test(u.pathname)) return `the database in ${JSON.stringify(url)} must be a number (redis://HOST:PORT/DB)`;
  return undefined;
}

/** `store` in config.json, --store, FERRET_STORE: fleet mode's Redis. */
export const StoreUrlSchema = lazySchema(() =>
  z.string().superRefine((v, ctx) => {
    const problem = storeUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
);

export const ConfigSchema = lazySchema(() =>
  z
    .object({
      model: z.string().min(1).optional(),
      /** Fleet mode: sessions, metas and the audit log in this Redis (redis://HOST:PORT/DB) instead of files; --store and FERRET_STORE override it. */
      store: StoreUrlSchema.optional(),
      /** Fleet mode: the secret every server of the fleet shares (32 bytes or more; FERRET_FLEET_SECRET wins). Never stored in Redis. */
      fleet: z.object({ secret: z.string().min(32, 'the fleet secret must be 32 characters or more (e.g. `openssl rand -hex 32`)').optional() }).strict().optional(),
      /** The cloud bridge: the relay this server dials on start (wss://, or ws:// to loopback); --bridge overrides it. */
      bridge: z
        .object({
          relay: z.string().superRefine((v, ctx) => {
            const problem = relayUrlProblem(v);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          }),
        })
        .strict()
        .optional(),
      providers: z.record(z.string(), ProviderConfigSchema).default({}),
      rules: z
        .object({
          allow: z.array(z.string()).default([]),
          ask: z.array(z.string()).default([]),
          deny: z.array(z.string()).default([]),
        })
        .default({ allow: [], ask: [], deny: [] }),
      /** Model calls one turn may make before it stops with max_steps. */
      maxSteps: z.number().int().positive().max(100_000).optional(),
      /** Default reasoning effort of a new session (a session may change it). */
      reasoning: ReasoningEffortSchema.optional(),
      /** Patient retries of a failed model call: attempts in all, and the longest single wait ferret accepts (seconds). */
      retry: z.object({ attempts: z.number().int().min(1).max(50).optional(), maxWaitS: z.number().positive().max(3600).optional() }).optional(),
      /** File names read as project instructions when a folder has no AGENTS.md, in order (default CLAUDE.md, GEMINI.md). */
      instructionFiles: z.array(z.string().regex(/^[^/\\]+$/, 'a file name, not a path')).optional(),
      /** Deny a permission question nobody answered in this many ms (a bot-driven server); default: wait for a person. */
      permissionTimeoutMs: z.number().int().positive().optional(),
      /** How long ferret waits for an editor to answer a file request (fs/read_text_file, fs/write_text_file). */
      clientRequestTimeoutMs: z.number().int().positive().optional(),
      /** An idle session (no turn, no pending permission, no client attached) leaves memory after this many seconds (default 600). */
      sessionIdleSeconds: z.number().positive().optional(),
      /** At most this many sessions in memory: past it the least recently used idle ones leave at once (default 256). */
      maxLiveSessions: z.number().int().positive().optional(),
      /** Bytes of one tool result the model receives; the rest is kept in a file the model can page through. */
      outputCapBytes: z.number().int().min(1024).max(64 * 1024 * 1024).optional(),
      /** The second wave's name for outputCapBytes, still read (outputCapBytes wins). */
      toolOutputCapBytes: z.number().int().min(1024).max(64 * 1024 * 1024).optional(),
      /**
       * The edit tools a model is offered: auto (apply_patch for GPT/codex models, edit_file,
       * multi_edit and write_file for the rest), apply_patch, replace, or all of them.
       */
      editTools: z.enum(['auto', 'apply_patch', 'replace', 'all']).optional(),
      /** Which engine grep and glob use: auto (ripgrep when installed), ripgrep (required), builtin. */
      search: z.object({ engine: z.enum(['auto', 'ripgrep', 'builtin']).optional() }).optional(),
      /**
       * readOutside: under read-only, ask (default) before a command reads a path outside the
       * workspace, or allow it. unixSockets: block (default) hides sockets under the home folder
       * from confined commands, or allow them.
       */
      sandbox: z.object({ readOutside: z.enum(['ask', 'allow']).optional(), unixSockets: z.enum(['block', 'allow']).optional() }).optional(),
      /**
       * web_fetch: hosts fetched without asking under auto (`example.com` covers its subdomains),
       * and allowPrivate: true, or the hosts that may be loopback, link-local or private addresses.
       */
      webFetch: z
        .object({
          allowDomains: z.array(z.string().regex(/^(\*\.)?[A-Za-z0-9.:[\]_-]+$/, 'a host name, `*.` and a domain, or an IP address')).optional(),
          allowPrivate: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
        })
        .strict()
        .optional(),
      /** MCP servers offered to every session as mcp__<name>__<tool>. */
      mcpServers: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only'), McpServerConfigSchema).default({}),
      /**
       * Environment variables commands (bash) receive besides the built-in allowlist (PATH, HOME,
       * USER, LOGNAME, SHELL, TERM, LANG, LANGUAGE, LC_*, TZ, TMPDIR). A trailing `*` matches a prefix.
       */
      env: z
        .object({ pass: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, 'a variable name, optionally ending in *')).default([]) })
        .default({ pass: [] }),
    })
    .loose(),
);
export type FerretConfig = z.infer<typeof ConfigSchema>;

/**
 * What `ConfigSchema.parse({})` gives, without building the schema: most servers have no
 * config.json, and the schema is the largest one start-up would build (config.test.ts keeps
 * the two equal).
 */
export function defaultConfig(): FerretConfig {
  return { providers: {}, rules: { allow: [], ask: [], deny: [] }, mcpServers: {}, env: { pass: [] } };
}
