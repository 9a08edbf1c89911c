import type { ProviderMetadata } from 'ai';
import type { ReasoningPart } from '../protocol/index.js';
import type { ReasoningFamily } from './reasoning.js';

/**
 * Gathers one reply's reasoning blocks as they stream: each block's text and the provider data
 * that comes with its start, its deltas and its end (OpenAI's encrypted item comes with the end,
 * Anthropic's signature with a delta of no text). A block is finished at its end.
 */
export class ReasoningBlocks {
  private readonly open = new Map<string, { text: string; data: Record<string, Record<string, unknown>> }>();

  constructor(private readonly family: ReasoningFamily | undefined) {}

  start(id: string, meta: ProviderMetadata | undefined): void {
    this.open.set(id, { text: '', data: {} });
    this.merge(id, meta);
  }

  delta(id: string, text: string, meta: ProviderMetadata | undefined): void {
    if (!this.open.has(id)) this.open.set(id, { text: '', data: {} });
    this.open.get(id)!.text += text;
    this.merge(id, meta);
  }

  /** The finished block, when its family's data came with it (only that can be handed back). */
  end(id: string, meta: ProviderMetadata | undefined): ReasoningPart | undefined {
    this.merge(id, meta);
    const b = this.open.get(id);
    this.open.delete(id);
    if (!b || !this.family || !b.data[this.family]) return undefined;
    return { text: b.text, data: { [this.family]: b.data[this.family]! } };
  }

  /** Later values win, but a null never hides one already known (OpenAI's start says null, its end the item). */
  private merge(id: string, meta: ProviderMetadata | undefined): void {
    const b = this.open.get(id);
    if (!b || !meta) return;
    for (const [key, fields] of Object.entries(meta)) {
      const into = (b.data[key] ??= {});
      for (const [k, v] of Object.entries(fields)) if (v !== null && v !== undefined) into[k] = v;
    }
  }
}
