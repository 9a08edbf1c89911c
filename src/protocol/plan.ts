import { z } from 'zod';
import { lazySchema } from './lazy-schema.js';

// The model's own todo list (the update_plan tool): one shape from the tool's arguments through
// the event log to every surface, so what the model sent is what an editor draws.

export const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export const PLAN_PRIORITIES = ['high', 'medium', 'low'] as const;

/** One step as logged and sent: the priority is always there (ACP requires it; `medium` when the model gave none). */
export const PlanEntrySchema = lazySchema(() =>
  z.object({
    content: z.string(),
    status: z.enum(PLAN_STATUSES),
    priority: z.enum(PLAN_PRIORITIES),
  }),
);
export type PlanEntry = z.infer<typeof PlanEntrySchema>;
export type PlanStatus = PlanEntry['status'];
export type PlanPriority = PlanEntry['priority'];

/** What a step is given when the model names no priority. */
export const DEFAULT_PLAN_PRIORITY: PlanPriority = 'medium';
