// The wire shapes the console reads. Frames and session details come from the typed client's
// generated schema (clients/typescript, generated from the server's OpenAPI document).
import type { components } from '../../clients/typescript/src/schema.js';

type S = components['schemas'];
export type FerretUpdate = S['FerretUpdate'];
export type UpdateOf<K extends FerretUpdate['kind']> = Extract<FerretUpdate, { kind: K }>;
export type SessionDetail = S['SessionDetail'];
export type Mode = S['SessionDescription']['mode'];
export type Approval = S['SessionDescription']['approval'];
export type Decision = UpdateOf<'permission_resolved'>['decision'];
export type Risk = UpdateOf<'permission_request'>['risk'];
export type ToolStatus = UpdateOf<'tool_call_end'>['result']['status'];
export type StopReason = UpdateOf<'turn_end'>['stop_reason'];
export type PlanEntry = S['PlanEntry'];

export const MODES: readonly Mode[] = ['code', 'plan'];
export const APPROVALS: readonly Approval[] = ['suggest', 'auto', 'full-auto'];

/** GET /session items (approval for live sessions). */
export type SessionSummary = S['SessionSummary'] & { approval?: Approval };
/** GET /models. */
export interface ModelList {
  default: string;
  models: { id: string; name: string; description?: string }[];
}
/** GET /session/:id/prompts. */
export interface Prompt {
  seq: number;
  turnId: string;
  text: string;
  origin?: string;
}
/** GET /auth/session and POST /auth/login. */
export interface AuthState {
  tokenRequired: boolean;
  authenticated: boolean;
  csrfToken?: string;
}

/** GET /session/:id/commands: one entry of the `/` menu (`source` says whose: ferret's, the team's or the person's). */
export type SlashCommandItem = S['CommandList']['commands'][number] & { source?: 'builtin' | 'workspace' | 'user' };
