import { z } from 'zod';
import { AgentModeSchema, ApprovalPresetSchema, DecisionSchema, SandboxModeSchema, SessionDescriptionSchema, SessionSummarySchema, TurnResultSchema } from '../../core/index.js';

// The wire shapes of the HTTP routes: they validate requests and feed the OpenAPI document.

/** Session ids become folder names: only this shape passes, so `..%2F` never reaches the disk. */
export const SessionParams = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a session id (letters, digits, _ and -, at most 64)'),
});

export const NewSessionBody = z
  .object({
    cwd: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    mode: AgentModeSchema.optional(),
    approval: ApprovalPresetSchema.optional(),
  })
  .strict();

export const SessionDescription = SessionDescriptionSchema;

export const SessionSummary = SessionSummarySchema;

export const SessionList = z.object({ sessions: z.array(SessionSummary) });

export const Usage = z.object({ input: z.number(), output: z.number(), cache: z.number(), reasoning: z.number() });

export const SessionDetail = SessionDescription.extend({
  title: z.string().optional(),
  status: z.enum(['idle', 'running']),
  usage: Usage,
  costUsd: z.number(),
  turns: z.number(),
  lastSeq: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const MessageBody = z.object({ text: z.string() }).strict();
export const MessageQuery = z.object({
  wait: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((w) => w === 'true' || w === '1'),
});
export const TurnResult = TurnResultSchema;
export const TurnAccepted = z.object({ turnId: z.string() });

export const Ok = z.object({ ok: z.literal(true) });
export const ModeBody = z.object({ mode: AgentModeSchema }).strict();
export const ModeResult = z.object({ mode: AgentModeSchema });
export const ModelBody = z.object({ model: z.string().min(1) }).strict();
export const ModelResult = z.object({ model: z.string() });
export const ApprovalBody = z.object({ preset: ApprovalPresetSchema }).strict();
export const ApprovalResult = z.object({ old: ApprovalPresetSchema, new: ApprovalPresetSchema });
export const SandboxResult = z.object({ mode: SandboxModeSchema });
export const PermissionBody = z.object({ id: z.string().min(1), decision: DecisionSchema }).strict();
export const BridgeResult = z.object({ attached: z.boolean() });
export const Health = z.object({ ok: z.literal(true), version: z.string() });

export const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** The error answers a session route can give, for the OpenAPI document. */
export const sessionErrors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody } as const;
