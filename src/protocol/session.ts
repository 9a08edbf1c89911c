import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';
import { ERROR_CODES } from './errors.js';
import { AgentModeSchema, ApprovalPresetSchema, SandboxModeSchema, StopReasonSchema } from './types.js';

// How a session is described to clients, on every surface.

/** Extra workspace roots (ACP `additionalDirectories`): absolute folders, besides cwd. */
export const AdditionalDirectoriesSchema = lazySchema(() =>
  z
    .array(z.string().min(1).refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path'))
    .max(64),
);

/** The small summary kept beside each log, so listing never reads whole logs. */
/** A title a person gives a session (rename): one line, trimmed, 1–200 characters. */
export const SessionTitleSchema = lazySchema(() =>
  z
    .string()
    .transform((t) => t.replace(/\s+/g, ' ').trim())
    .pipe(z.string().min(1, 'the title is empty').max(200, 'the title is longer than 200 characters')),
);

export const SessionMetaSchema = lazySchema(() =>
  z.object({
    sessionId: z.string(),
    cwd: z.string(),
    title: z.string().optional(),
    model: z.string(),
    mode: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    costUsd: z.number().default(0),
    /** Extra workspace roots, besides cwd (absent: none). */
    additionalDirectories: z.array(z.string()).optional(),
  }),
);
export type SessionMeta = z.infer<typeof SessionMetaSchema>;

/** A session as session/list and GET /session show it: its meta plus whether it runs now. */
export const SessionSummarySchema = lazySchema(() =>
  SessionMetaSchema.extend({
    status: z.enum(['idle', 'running']),
    live: z.boolean(),
  }),
);
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/** What session/new and POST /session answer. */
export const SessionDescriptionSchema = lazySchema(() =>
  z.object({
    sessionId: z.string(),
    mode: AgentModeSchema,
    model: z.string(),
    sandbox: SandboxModeSchema,
    approval: ApprovalPresetSchema,
    cwd: z.string(),
  }),
);
export type SessionDescription = z.infer<typeof SessionDescriptionSchema>;

/** How a turn ended, as the ferret dialect's session/message and HTTP's message route answer. */
export const TurnResultSchema = lazySchema(() =>
  z.object({
    turnId: z.string(),
    stopReason: StopReasonSchema,
    message: z.object({ role: z.literal('assistant'), text: z.string() }),
    /** Why the turn failed, when stopReason is `error`. */
    error: z.string().optional(),
    /** The failure's code when it has one (`auth_required`: set the provider's key). */
    errorCode: z.enum(ERROR_CODES).optional(),
  }),
);
export type TurnResult = z.infer<typeof TurnResultSchema>;
