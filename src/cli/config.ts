import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PricingSchema } from '../core/types.js';
import { configFile } from '../store/paths.js';
import type { McpServerSpec } from '../tools/mcp-tool.js';

const ModelEntrySchema = z.object({
  contextWindow: z.number().int().positive().optional(),
  pricing: PricingSchema.partial().optional(),
});

export const ProviderConfigSchema = z.object({
  type: z.enum(['openai', 'anthropic', 'ollama', 'openai-compatible']),
  baseURL: z.string().url().optional(),
  apiKey: z.string().optional(),
  models: z.record(z.string(), ModelEntrySchema).optional(),
});

const McpServerConfigSchema = z.union([
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
]);

export const ConfigSchema = z
  .object({
    model: z.string().min(1).optional(),
    providers: z.record(z.string(), ProviderConfigSchema).default({}),
    rules: z
      .object({
        allow: z.array(z.string()).default([]),
        ask: z.array(z.string()).default([]),
        deny: z.array(z.string()).default([]),
      })
      .default({ allow: [], ask: [], deny: [] }),
    maxSteps: z.number().int().positive().max(1000).optional(),
    /** MCP servers offered to every session as mcp__<name>__<tool>. */
    mcpServers: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only'), McpServerConfigSchema).default({}),
  })
  .loose();
export type FerretConfig = z.infer<typeof ConfigSchema>;

/** $CHIMERA_HOME/ferret/config.json; absent is fine, malformed is a start-up error naming the field. */
export function loadConfig(home: string): FerretConfig {
  const file = configFile(home);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return ConfigSchema.parse({});
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  const r = ConfigSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new Error(`${file}: field ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return r.data;
}

/** config.json's MCP servers in the tool layer's shape. */
export function mcpSpecs(config: FerretConfig): McpServerSpec[] {
  return Object.entries(config.mcpServers).map(([name, c]) =>
    'command' in c
      ? { name, transport: 'stdio' as const, command: c.command, args: c.args, env: c.env, ...(c.cwd ? { cwd: c.cwd } : {}) }
      : { name, transport: c.type, url: c.url, headers: c.headers },
  );
}
