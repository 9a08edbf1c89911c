import { z } from 'zod';
import { built, lazySchema } from './lazy-schema.js';
import { ImageSchema } from './images.js';

export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export const SandboxModeSchema = lazySchema(() => z.enum(SANDBOX_MODES));
export type SandboxMode = z.infer<typeof SandboxModeSchema>;

export const APPROVAL_PRESETS = ['suggest', 'auto', 'full-auto'] as const;
export const ApprovalPresetSchema = lazySchema(() => z.enum(APPROVAL_PRESETS));
export type ApprovalPreset = z.infer<typeof ApprovalPresetSchema>;

// max_tokens: the reply was cut at the model's output limit; refusal: the provider declined to answer.
export const STOP_REASONS = ['end_turn', 'cancelled', 'max_steps', 'max_tokens', 'refusal', 'error'] as const;
export const StopReasonSchema = lazySchema(() => z.enum(STOP_REASONS));
export type StopReason = z.infer<typeof StopReasonSchema>;

/** How hard a reasoning model thinks before it answers (what each level means is the provider's). */
export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;
export const ReasoningEffortSchema = lazySchema(() => z.enum(REASONING_EFFORTS));
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

export const DECISIONS = ['allow', 'deny', 'always', 'never'] as const;
export const DecisionSchema = lazySchema(() => z.enum(DECISIONS));
export type Decision = z.infer<typeof DecisionSchema>;

export const RiskSchema = lazySchema(() => z.enum(['low', 'medium', 'high']));
export type Risk = z.infer<typeof RiskSchema>;

export const ToolStatusSchema = lazySchema(() => z.enum(['completed', 'failed', 'denied', 'cancelled']));
export type ToolStatus = z.infer<typeof ToolStatusSchema>;

const fourCounts = () =>
  z.object({
    input: z.number().nonnegative().default(0),
    output: z.number().nonnegative().default(0),
    cache: z.number().nonnegative().default(0),
    reasoning: z.number().nonnegative().default(0),
  });

/** Four disjoint token counts: input excludes cached input, output excludes reasoning. */
export const UsageSchema = lazySchema(() => fourCounts());
export type Usage = z.infer<typeof UsageSchema>;

/** USD per million tokens of each usage count. */
export const PricingSchema = lazySchema(() => fourCounts());
export type Pricing = z.infer<typeof PricingSchema>;

export const ZERO_USAGE: Usage = { input: 0, output: 0, cache: 0, reasoning: 0 };

export function usdOf(usage: Usage, pricing: Pricing | undefined): number {
  if (!pricing) return 0;
  return (
    (usage.input * pricing.input +
      usage.output * pricing.output +
      usage.cache * pricing.cache +
      usage.reasoning * pricing.reasoning) /
    1_000_000
  );
}

export const ToolCallSchema = lazySchema(() => z.object({ id: z.string(), name: z.string(), args: z.unknown() }));
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ToolResultSchema = lazySchema(() =>
  z.object({
    callId: z.string(),
    name: z.string(),
    status: built(ToolStatusSchema),
    output: z.string(),
    /** Images the tool hands the model (read_file of a picture): kept here once, never in tool_call_end. */
    images: z.array(built(ImageSchema)).optional(),
  }),
);
export type ToolResult = z.infer<typeof ToolResultSchema>;

/**
 * One block of a reply's reasoning: its text (a summary, or the thinking itself) and what the
 * provider needs to be handed back to go on from it, opaque to ferret (OpenAI's encrypted item,
 * Anthropic's signature), keyed by the provider family that made it (`openai`, `anthropic`).
 */
export const ReasoningPartSchema = lazySchema(() =>
  z.object({ text: z.string(), data: z.record(z.string(), z.record(z.string(), z.unknown())).optional() }),
);
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>;

/** The conversation as the model sees it; stored as `message` events so a load can rebuild it. */
export const MessageSchema = lazySchema(() =>
  z.discriminatedUnion('role', [
    z.object({
      role: z.literal('user'),
      text: z.string(),
      /** Images the person attached, kept once, here: the model gets them and a history replay shows them. */
      images: z.array(built(ImageSchema)).optional(),
    }),
    z.object({
      role: z.literal('assistant'),
      text: z.string(),
      toolCalls: z.array(built(ToolCallSchema)),
      /** The reasoning that came before the text and calls, handed back to the family that made it. */
      reasoning: z.array(built(ReasoningPartSchema)).optional(),
    }),
    z.object({ role: z.literal('tool'), results: z.array(built(ToolResultSchema)) }),
  ]),
);
export type Message = z.infer<typeof MessageSchema>;

export const AGENT_MODES = ['code', 'plan'] as const;
export const AgentModeSchema = lazySchema(() => z.enum(AGENT_MODES));
export type AgentMode = z.infer<typeof AgentModeSchema>;
