import { jsonSchema, type ModelMessage, type ProviderMetadata, type SystemModelMessage, type Tool } from 'ai';
import type { Image, Message, ReasoningEffort, ToolResult } from '../protocol/index.js';
import { imageNote, withImageBudget, type ImageSupport } from './images.js';
import type { ToolSpec } from './provider.js';
import { reasoningFor, type ReasoningFamily } from './reasoning.js';

// Anthropic prompt caching: a breakpoint on the system prompt and one on the newest message,
// so each call reads the previous call's prefix from cache. Other providers ignore the key.
const CACHE_MARK = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

function asObject(args: unknown): Record<string, unknown> {
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

type ToolPart = Extract<ModelMessage, { role: 'tool' }>['content'][number];
type UserContent = Extract<ModelMessage, { role: 'user' }>['content'];

/** A model that sees nothing but text, told where the images were (providers/images.ts). */
const TEXT_ONLY: ImageSupport = { see: false, toolImages: 'after' };

const imagePart = (im: Image) => ({ type: 'image' as const, image: im.data, mediaType: im.mimeType });
const notes = (images: readonly Image[], modelId: string) => images.map((im) => imageNote(im, modelId)).join('\n');

/** A user message: its text, then its images as image parts (or, for a text-only model, a note for each). */
function userContent(text: string, images: readonly Image[] | undefined, media: ImageSupport, modelId: string): UserContent {
  if (!images?.length) return text;
  if (!media.see) return [text, notes(images, modelId)].filter(Boolean).join('\n\n');
  return [...(text ? [{ type: 'text' as const, text }] : []), ...images.map(imagePart)];
}

function toolResultPart(r: ToolResult, media: ImageSupport = TEXT_ONLY, modelId = ''): ToolPart {
  const base = { type: 'tool-result' as const, toolCallId: r.callId, toolName: r.name };
  if (r.status !== 'completed') return { ...base, output: { type: 'error-text', value: r.output || r.status } };
  const images = r.images ?? [];
  if (images.length && media.see && media.toolImages === 'inline') {
    const parts = images.map((im) => ({ type: 'image-data' as const, data: im.data, mediaType: im.mimeType }));
    return { ...base, output: { type: 'content', value: [{ type: 'text', text: r.output }, ...parts] } };
  }
  if (images.length && !media.see) return { ...base, output: { type: 'text', value: `${r.output}\n${notes(images, modelId)}` } };
  const after = images.length ? '\n(the image follows in the next message)' : '';
  return { ...base, output: { type: 'text', value: r.output + after } };
}

/** A tool message's images for a provider whose tool results are text only: one user message right after it. */
function imagesAfter(results: readonly ToolResult[], media: ImageSupport): ModelMessage[] {
  if (!media.see || media.toolImages !== 'after') return [];
  const withImages = results.filter((r) => r.status === 'completed' && r.images?.length);
  if (withImages.length === 0) return [];
  return [{
    role: 'user',
    content: withImages.flatMap((r) => [{ type: 'text' as const, text: `The image${r.images!.length > 1 ? 's' : ''} ${r.name} returned (call ${r.callId}):` }, ...r.images!.map(imagePart)]),
  }];
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
  /** How this model takes images; absent: text only (each image becomes a note naming `modelId`). */
  media: ImageSupport = TEXT_ONLY,
  modelId = 'this model',
): { system?: SystemModelMessage; messages: ModelMessage[] } {
  const out: ModelMessage[] = [];
  const sent = media.see ? withImageBudget(history) : history; // a text-only model gets notes for all of them anyway
  for (let i = 0; i < sent.length; i++) {
    const m = sent[i]!;
    if (m.role === 'user') {
      out.push({ role: 'user', content: userContent(m.text, m.images, media, modelId) });
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
      const next = sent[i + 1];
      const answered = new Set(next?.role === 'tool' ? next.results.map((r) => r.callId) : []);
      const missing = m.toolCalls.filter((c) => !answered.has(c.id));
      if (missing.length > 0 && next?.role !== 'tool') {
        out.push({
          role: 'tool',
          content: missing.map((c) => toolResultPart({ callId: c.id, name: c.name, status: 'cancelled', output: 'no result: the turn ended before this tool ran' })),
        });
      }
    } else {
      const prev = sent[i - 1];
      const calls = prev?.role === 'assistant' ? prev.toolCalls : [];
      const answered = new Set(m.results.map((r) => r.callId));
      const extra = calls
        .filter((c) => !answered.has(c.id))
        .map((c): ToolResult => ({ callId: c.id, name: c.name, status: 'cancelled', output: 'no result: the turn ended before this tool ran' }));
      out.push({ role: 'tool', content: [...m.results, ...extra].map((r) => toolResultPart(r, media, modelId)) });
      out.push(...imagesAfter(m.results, media));
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
