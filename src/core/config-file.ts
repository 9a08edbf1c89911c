import { readFileSync } from 'node:fs';
import { ConfigSchema, defaultConfig, type FerretConfig, type McpServerSpec } from '../protocol/index.js';
import { configFile } from '../store/paths.js';

/** $CHIMERA_HOME/ferret/config.json; absent is fine, malformed is a start-up error naming the field. */
export function loadConfig(home: string): FerretConfig {
  const file = configFile(home);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return defaultConfig();
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
