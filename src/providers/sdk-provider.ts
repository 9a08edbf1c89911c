import { setTimeout as sleep } from 'node:timers/promises';
import type { LanguageModel } from 'ai';
import type { Pricing } from '../protocol/index.js';
import type { FailureContext } from './failures.js';
import { DEFAULT_RETRY, retryDelayMs, seconds, type RetryPolicy } from './backoff.js';
import { ContextOverflowError, ModelError, type ModelProvider, type ModelRequest, type ModelStreamPart } from './provider.js';
import { ShownText } from './shown-text.js';
import type { ReasoningFamily } from './reasoning.js';
import { unseenImagesNotice, type ImageSupport } from './images.js';

/** Longest silence tolerated mid-stream (reasoning models may think for minutes before a token). */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

export interface SdkProviderOptions extends FailureContext {
  /** Built lazily so a missing key fails the turn with advice, not the server start. */
  model: () => Promise<LanguageModel>;
  /** Throws a ModelError when the model cannot run (no key, no base URL); called before each turn and by setModel. */
  check: () => void;
  cache: boolean;
  pricing?: Pricing | undefined;
  contextWindow?: number | undefined;
  /** Asks the server for the window when none is configured or known (a local server; providers/window-probe.ts). */
  probeWindow?: (() => Promise<number | undefined>) | undefined;
  /** said once, on the first call (e.g. "no price known for this model") */
  firstCallNotice?: string | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  idleTimeoutMs?: number | undefined;
  /** Multiplies every retry wait (tests: 0.01 makes the provider's 20 s a 200 ms sleep; notices still say 20 s). */
  timeScale?: number | undefined;
  /** The reasoning this model takes (providers/reasoning.ts); undefined: it is sent no effort. */
  reasoning?: ReasoningFamily | undefined;
  /** Whether the model sees images and where a tool's images go (providers/images.ts); absent: text only. */
  images?: ImageSupport | undefined;
}

/** A real model behind the AI SDK, with ferret's retry policy and its notices. */
export class SdkProvider implements ModelProvider {
  readonly id: string;
  readonly pricing: Pricing | undefined;
  contextWindow: number | undefined;
  readonly takesReasoning: boolean;
  readonly takesImages: boolean;
  private pendingNotice: string | undefined;
  private toldNoReasoning = false;
  private readonly retry: RetryPolicy;

  constructor(private readonly opts: SdkProviderOptions) {
    this.id = opts.modelId;
    this.pricing = opts.pricing;
    this.contextWindow = opts.contextWindow;
    this.takesReasoning = opts.reasoning !== undefined;
    this.takesImages = opts.images?.see === true;
    this.pendingNotice = opts.firstCallNotice;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
  }

  /** Learns a local server's real window once; a failed or silent probe leaves it unknown. */
  async prepare(): Promise<void> {
    if (this.contextWindow !== undefined || !this.opts.probeWindow) return;
    this.contextWindow = await this.opts.probeWindow();
  }


  check(): void {
    this.opts.check();
  }

  async *stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
    this.opts.check();
    if (this.pendingNotice) {
      yield { type: 'notice', level: 'info', text: this.pendingNotice };
      this.pendingNotice = undefined;
    }
    // medium is the default every session has: only a chosen effort this model ignores is worth a word.
    if (!this.opts.reasoning && req.reasoning && req.reasoning !== 'medium' && !this.toldNoReasoning) {
      this.toldNoReasoning = true;
      yield { type: 'notice', level: 'info', text: `${this.id} takes no reasoning effort: the session's setting (${req.reasoning}) is kept for models that do, and not sent to this one` };
    }
    if (!this.takesImages) {
      const unseen = unseenImagesNotice(this.id, req.messages);
      if (unseen) yield { type: 'notice', level: 'warning', text: unseen };
    }
    const model = await this.opts.model();
    // Loaded here, not at import: the AI SDK costs ~200 ms of start-up that scripted sessions never need.
    const [{ streamOnce }, { classifyFailure }] = await Promise.all([import('./attempt.js'), import('./failures.js')]);
    const idleTimeoutMs = this.opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    const shown = new ShownText();
    const scale = this.opts.timeScale ?? 1;
    let produced = false;
    const kept = () => (produced ? '. The partial reply is kept; send another message to continue' : '');
    for (let attempt = 1; ; attempt++) {
      shown.restart();
      try {
        for await (const part of streamOnce(req, { model, cache: this.opts.cache, idleTimeoutMs, family: this.opts.reasoning, media: this.opts.images, modelId: this.id })) {
          if (part.type === 'text' || part.type === 'reasoning') {
            produced = true;
            yield* shown.pass(part);
          } else yield part;
        }
        return;
      } catch (err) {
        if (req.signal.aborted) throw err;
        const f = classifyFailure(err, this.opts);
        if (f.overflow && !produced) throw new ContextOverflowError(f.message, false);
        if (!f.retryable) throw new ModelError(`${f.message}${kept()}`, false);
        const tries = attempt > 1 ? ` (gave up after ${attempt} attempts)` : '';
        if (attempt >= this.retry.maxAttempts) throw new ModelError(`${f.message}${tries}${kept()}`, true);
        const delay = retryDelayMs(attempt, this.retry, f.retryAfterMs);
        if (delay > this.retry.maxWaitMs) {
          throw new ModelError(`${f.message}; the provider asks to wait ${seconds(delay)}, longer than ferret waits (${seconds(this.retry.maxWaitMs)}, config retry.maxWaitS)${kept()}`, true);
        }
        yield { type: 'notice', level: 'warning', text: `${this.id}: ${f.label}; retrying in ${seconds(delay)} (attempt ${attempt + 1} of ${this.retry.maxAttempts})` };
        await sleep(delay * scale, undefined, { signal: req.signal });
      }
    }
  }
}
