import { streamText, type LanguageModel, type LanguageModelUsage } from 'ai';
import type { ReasoningPart, Usage } from '../protocol/index.js';
import { IdleTimeoutError, StreamCutError } from './failures.js';
import { toPrompt, toToolSet } from './messages.js';
import type { FinishReason, ModelRequest, ModelStreamPart } from './provider.js';
import { reasoningOptions, type ReasoningFamily } from './reasoning.js';
import { ReasoningBlocks } from './reasoning-blocks.js';
import type { ImageSupport } from './images.js';

// The SDK's own warning printer writes to the console; ours reports through notices instead.
(globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;

/** SDK usage → ferret's four disjoint counts (cached input out of input, reasoning out of output). */
export function toUsage(u: LanguageModelUsage): Usage | undefined {
  if (u.inputTokens === undefined && u.outputTokens === undefined) return undefined;
  const cache = u.inputTokenDetails?.cacheReadTokens ?? u.cachedInputTokens ?? 0;
  const reasoning = u.outputTokenDetails?.reasoningTokens ?? u.reasoningTokens ?? 0;
  return {
    input: Math.max(0, (u.inputTokens ?? 0) - cache),
    output: Math.max(0, (u.outputTokens ?? 0) - reasoning),
    cache,
    reasoning,
  };
}

/** The SDK's finish reason as the loop needs it (content-filter is how the SDK reports a refusal). */
function finishReason(r: string): FinishReason {
  switch (r) {
    case 'stop': case 'tool-calls': case 'length': return r;
    case 'content-filter': return 'refusal';
    default: return 'other';
  }
}

export interface AttemptOptions {
  model: LanguageModel;
  /** Anthropic: mark cache breakpoints */
  cache: boolean;
  idleTimeoutMs: number;
  /** The reasoning this model takes, if any: asked for at the request's effort, and handed back. */
  family?: ReasoningFamily | undefined;
  /** How the model takes images (absent: text only, each image a note). */
  media?: ImageSupport | undefined;
  /** Named in the note a text-only model gets for an image. */
  modelId?: string | undefined;
}

/**
 * One model call. Text and reasoning stream through as they arrive; tool calls are held until
 * the provider says it finished, so a cut stream never hands the loop a half-made call.
 */
export async function* streamOnce(req: ModelRequest, opts: AttemptOptions): AsyncGenerator<ModelStreamPart> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(req.signal.reason);
  req.signal.addEventListener('abort', onAbort, { once: true });
  let idle: IdleTimeoutError | undefined;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = new IdleTimeoutError(opts.idleTimeoutMs);
      ac.abort(idle);
    }, opts.idleTimeoutMs);
  };
  try {
    req.signal.throwIfAborted();
    arm();
    const modelId = typeof opts.model === 'string' ? opts.model : opts.model.modelId;
    const reasoning = opts.family ? reasoningOptions(opts.family, req.reasoning, modelId) : undefined;
    const result = streamText({
      model: opts.model,
      ...toPrompt(req.system, req.messages, opts.cache, opts.family, req.reasoning, opts.media, opts.modelId),
      ...(req.tools.length > 0 ? { tools: toToolSet(req.tools) } : {}),
      ...(reasoning ? { providerOptions: reasoning } : {}),
      ...(req.maxOutputTokens !== undefined ? { maxOutputTokens: req.maxOutputTokens } : {}),
      maxRetries: 0,
      abortSignal: ac.signal,
      onError: () => {}, // errors arrive as `error` parts below; the default handler prints them
    });
    // Held like the calls: a retried stream must not hand the loop a cut attempt's reasoning twice.
    const thoughts: ModelStreamPart[] = [];
    const calls: ModelStreamPart[] = [];
    let usage: Usage | undefined;
    let finished = false;
    let finish: FinishReason = 'stop';
    const blocks = new ReasoningBlocks(opts.family);
    for await (const part of result.fullStream) {
      arm();
      switch (part.type) {
        case 'text-delta':
          if (part.text) yield { type: 'text', text: part.text };
          break;
        case 'reasoning-start':
          blocks.start(part.id, part.providerMetadata);
          break;
        case 'reasoning-delta':
          blocks.delta(part.id, part.text, part.providerMetadata);
          if (part.text) yield { type: 'reasoning', text: part.text };
          break;
        case 'reasoning-end': {
          const done: ReasoningPart | undefined = blocks.end(part.id, part.providerMetadata);
          if (done) thoughts.push({ type: 'reasoning_part', part: done });
          break;
        }
        case 'tool-call':
          calls.push({ type: 'tool_call', id: part.toolCallId, name: part.toolName, args: part.input });
          break;
        case 'finish-step':
          if (part.finishReason === 'error' || (part.rawFinishReason === undefined && part.finishReason === 'other')) {
            throw new StreamCutError('the provider never said the reply was finished');
          }
          finish = finishReason(part.finishReason);
          usage = toUsage(part.usage);
          finished = true;
          break;
        case 'error':
          throw part.error;
        case 'abort':
          throw idle ?? req.signal.reason ?? new Error('aborted');
        // Framing, streamed tool-argument fragments (the provider assembles the call), and
        // parts that only exist for tools the SDK runs itself, which ferret's tools never are.
        case 'start': case 'finish': case 'start-step': case 'raw': case 'source': case 'file':
        case 'text-start': case 'text-end':
        case 'tool-input-start': case 'tool-input-delta': case 'tool-input-end':
        case 'tool-result': case 'tool-error': case 'tool-output-denied': case 'tool-approval-request':
          break;
      }
    }
    if (idle) throw idle;
    req.signal.throwIfAborted();
    if (!finished) throw new StreamCutError('the stream ended before the reply was finished');
    yield* thoughts;
    yield* calls;
    if (usage) yield { type: 'usage', usage };
    yield { type: 'finish', reason: finish };
  } catch (err) {
    if (idle) throw idle;
    throw err;
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener('abort', onAbort);
    if (!ac.signal.aborted) ac.abort(); // the consumer stopped early: close the HTTP stream
  }
}
