import type { Message, Pricing, ReasoningEffort, ReasoningPart, Usage } from '../protocol/index.js';

/** A tool as offered to a model: JSON Schema for its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  signal: AbortSignal;
  /** How many model calls this session made before this one (replayable providers key on it). */
  callIndex: number;
  /** The session's reasoning effort; a model that takes none is sent nothing for it. */
  reasoning?: ReasoningEffort | undefined;
  /** The most output tokens the reply may use (a side call's low limit); absent: the provider's default. */
  maxOutputTokens?: number | undefined;
  /** A side call (the session's title) rather than a step of the conversation. */
  purpose?: 'title' | undefined;
  /**
   * Set on a subagent's calls (a `task` call's child loop): the agent's name, else the task's
   * description. A replayable provider answers them from their own list; `callIndex` is then the
   * child's own count of calls.
   */
  subagent?: { agent?: string | undefined; description: string } | undefined;
}

export type ModelStreamPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  /** A finished block of reasoning with what its provider needs handed back (kept in the assistant message). */
  | { type: 'reasoning_part'; part: ReasoningPart }
  | { type: 'tool_call'; id: string; name: string; args: unknown }
  | { type: 'usage'; usage: Usage }
  | { type: 'notice'; level: 'info' | 'warning'; text: string }
  /** Why the reply ended, as the provider said: `length` is the output-token limit, `refusal` a declined answer. */
  | { type: 'finish'; reason: FinishReason }
  /** A retried call's reply differs from what was already streamed: drop what this call produced so far. */
  | { type: 'restart' };

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'refusal' | 'other';

/** What the agent loop needs of a model; one instance per model id, shareable across sessions. */
export interface ModelProvider {
  readonly id: string;
  readonly pricing?: Pricing;
  /** The model's context window in tokens; undefined while unknown (may become known after `prepare`). */
  readonly contextWindow?: number | undefined;
  /** Learns what the model needs before its first call in a turn (a local server's real window); never throws. */
  prepare?(signal: AbortSignal): Promise<void>;
  /** false: the model takes no reasoning effort (providers/reasoning.ts); absent: unknown (scripted). */
  readonly takesReasoning?: boolean;
  /** true: the model sees images; false: each image reaches it as a note saying so (providers/images.ts); absent: unknown. */
  readonly takesImages?: boolean;
  /** false: no title call is made (a scripted file without `title`); absent: one is, at the end of the first turn. */
  readonly titles?: boolean;
  /** Throws a ModelError saying what to set when this model cannot run here (no key, no base URL). */
  check?(): void;
  stream(req: ModelRequest): AsyncIterable<ModelStreamPart>;
}

/** A provider failure the loop reports as a notice; `retryable` says a retry is safe. */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    message: string,
    readonly retryable = false,
    /** `auth_required`: the provider has no key; the message names the variable or config field to set. */
    readonly code?: 'auth_required',
  ) {
    super(message);
  }
}

/** The provider refused the prompt as longer than the model's context window: the loop compacts and tries again once. */
export class ContextOverflowError extends ModelError {}
