import type { ModelStreamPart } from './provider.js';

// A retried call streams its reply again from the start. Clients already saw what the cut attempt
// streamed and cannot take it back, so the retry's text is passed on only past that point: the
// person sees each piece once and the loop records each piece once. A retry whose text differs
// from what was shown (a model sampled another reply) cannot be stitched: the loop is told to drop
// what it holds, and the new reply is shown again in full after a notice saying so.

type Streamed = 'text' | 'reasoning';

export class ShownText {
  private readonly shown: Record<Streamed, string> = { text: '', reasoning: '' };
  /** How far the current attempt has got in each kind. */
  private readonly at: Record<Streamed, number> = { text: 0, reasoning: 0 };
  private readonly attempt: Record<Streamed, string> = { text: '', reasoning: '' };

  /** A new attempt starts from the beginning of its reply. */
  restart(): void {
    for (const k of ['text', 'reasoning'] as const) {
      this.at[k] = 0;
      this.attempt[k] = '';
    }
  }

  /** What to pass on for one streamed piece of the current attempt. */
  pass(part: Extract<ModelStreamPart, { type: Streamed }>): ModelStreamPart[] {
    const k = part.type;
    const chunk = part.text;
    const shown = this.shown[k];
    const at = this.at[k];
    this.attempt[k] += chunk;
    this.at[k] = at + chunk.length;
    if (at >= shown.length) {
      this.shown[k] += chunk;
      return [part];
    }
    const overlap = chunk.slice(0, shown.length - at);
    if (shown.startsWith(overlap, at)) {
      const rest = chunk.slice(overlap.length);
      if (!rest) return [];
      this.shown[k] += rest;
      return [{ ...part, text: rest }];
    }
    // Diverged: the new reply replaces the old one everywhere it can.
    this.shown.text = this.attempt.text;
    this.shown.reasoning = this.attempt.reasoning;
    const again: ModelStreamPart[] = [
      { type: 'notice', level: 'warning', text: 'the retried reply differs from the part already shown; it follows in full' },
      { type: 'restart' },
    ];
    if (this.attempt.reasoning) again.push({ type: 'reasoning', text: this.attempt.reasoning });
    if (this.attempt.text) again.push({ type: 'text', text: this.attempt.text });
    return again;
  }
}
