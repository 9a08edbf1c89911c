import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PricingSchema } from '../core/types.js';
import { configFile } from '../store/paths.js';

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
