import { jsonSchema, type ModelMessage, type ProviderMetadata, type SystemModelMessage, type Tool } from 'ai';
import type { Message, ReasoningEffort, ToolResult } from '../protocol/index.js';
import type { ToolSpec } from './provider.js';
import { reasoningFor, type ReasoningFamily } from './reasoning.js';

// Anthropic prompt caching: a breakpoint on the system prompt and one on the newest message,
// so each call reads the previous call's prefix from cache. Other providers ignore the key.
const CACHE_MARK = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

function asObject(args: unknown): Record<string, unknown> {
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function toolResultPart(r: ToolResult): Extract<ModelMessage, { role: 'tool' }>['content'][number] {
  const output = r.status === 'completed' ? { type: 'text' as const, value: r.output } : { type: 'error-text' as const, value: r.output || r.status };
  return { type: 'tool-result', toolCallId: r.callId, toolName: r.name, output };
}

/**
 * ferret's conversation → AI SDK messages. A tool call left without a result (a turn cut short)
 * gets a synthetic error result, because every vendor rejects an unanswered call. A reply's
 * reasoning goes back first in its message, and only to the family that made it.
 */
export function toPrompt(
  system: string,
  history: Message[],
  cache: boolean,
  family?: ReasoningFamily,
  effort?: ReasoningEffort,
): { system?: SystemModelMessage; messages: ModelMessage[] } {
  const out: ModelMessage[] = [];
  for (let i = 0; i < history.length; i++) {
    const m = history[i]!;
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.text });
    } else if (m.role === 'assistant') {
      if (!m.text && m.toolCalls.length === 0) continue;
      out.push({
        role: 'assistant',
        content: [
          ...reasoningFor(family, m.reasoning, effort).map((r) => ({ type: 'reasoning' as const, text: r.text, providerOptions: r.data as ProviderMetadata })),
          ...(m.text ? [{ type: 'text' as const, text: m.text }] : []),
          ...m.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: asObject(c.args) })),
        ],
      });
      const next = history[i + 1];
      const answered = new Set(next?.role === 'tool' ? next.results.map((r) => r.callId) : []);
      const missing = m.toolCalls.filter((c) => !answered.has(c.id));
      if (missing.length > 0 && next?.role !== 'tool') {
        out.push({
          role: 'tool',
          content: missing.map((c) => toolResultPart({ callId: c.id, name: c.name, status: 'cancelled', output: 'no result: the turn ended before this tool ran' })),
        });
      }
    } else {
      const prev = history[i - 1];
      const calls = prev?.role === 'assistant' ? prev.toolCalls : [];
      const answered = new Set(m.results.map((r) => r.callId));
      const extra = calls
        .filter((c) => !answered.has(c.id))
        .map((c): ToolResult => ({ callId: c.id, name: c.name, status: 'cancelled', output: 'no result: the turn ended before this tool ran' }));
      out.push({ role: 'tool', content: [...m.results, ...extra].map(toolResultPart) });
    }
  }
  const last = out[out.length - 1];
  if (cache && last) last.providerOptions = CACHE_MARK;
  if (!system) return { messages: out };
  return { system: { role: 'system', content: system, ...(cache ? { providerOptions: CACHE_MARK } : {}) }, messages: out };
}

/** Tools offered to the model, declared without `execute`: the agent loop runs them, not the SDK. */
export function toToolSet(tools: ToolSpec[]): Record<string, Tool> {
  const set: Record<string, Tool> = {};
  for (const t of tools) {
    set[t.name] = { description: t.description, inputSchema: jsonSchema(t.parameters as Parameters<typeof jsonSchema>[0]) };
  }
  return set;
}
