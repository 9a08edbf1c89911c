import { ConfigSchema } from '../../src/protocol/index.js';
import type { Message } from '../../src/protocol/index.js';
import type { ModelProvider, ModelRequest, ModelStreamPart, ToolSpec } from '../../src/providers/provider.js';
import { createProviderFactories } from '../../src/providers/registry.js';

/** Short waits and three attempts, so a test sees a retry and a give-up quickly. */
export const TEST_RETRY = { baseDelayMs: 20, maxDelayMs: 100, maxAttempts: 3, maxWaitMs: 10_000 };

/** A provider for MODEL_ID built the way the server builds it, from a config object and an env. */
export function providerFor(modelId: string, config: unknown, env: NodeJS.ProcessEnv = {}): ModelProvider {
  const [factory] = createProviderFactories(ConfigSchema.parse(config), env, { retry: TEST_RETRY, idleTimeoutMs: 2000 });
  const p = factory?.(modelId, '/');
  if (!p) throw new Error(`no provider for ${modelId}`);
  return p;
}

export const TOOLS: ToolSpec[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { name: 'list_dir', description: 'List a folder', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
];

export function request(messages: Message[], signal = new AbortController().signal): ModelRequest {
  return { system: 'You are ferret.', messages, tools: TOOLS, signal, callIndex: 0 };
}

/** Drains a stream; an error is returned alongside the parts seen before it. */
export async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<{ parts: ModelStreamPart[]; error?: Error }> {
  const parts: ModelStreamPart[] = [];
  try {
    for await (const p of stream) parts.push(p);
    return { parts };
  } catch (error) {
    return { parts, error: error as Error };
  }
}

export const textOf = (parts: ModelStreamPart[]): string => parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

/** A conversation with a finished tool round, to check what the fake receives. */
export const HISTORY: Message[] = [
  { role: 'user', text: 'what is in a.txt and the src folder?' },
  { role: 'assistant', text: 'Looking.', toolCalls: [{ id: 'call_1', name: 'read_file', args: { path: 'a.txt' } }, { id: 'call_2', name: 'list_dir', args: { path: 'src' } }] },
  { role: 'tool', results: [{ callId: 'call_1', name: 'read_file', status: 'completed', output: 'hello' }, { callId: 'call_2', name: 'list_dir', status: 'failed', output: 'no such folder' }] },
  { role: 'user', text: 'thanks' },
];
