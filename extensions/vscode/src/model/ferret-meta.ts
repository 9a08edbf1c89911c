// ferret's extras travel as ACP extensions under `_meta["ferret.dev"]` (docs/ide.md, "Ferret
// extensions"); other agents simply do not send them, and every reader here treats them as optional.

export const FERRET_NS = 'ferret.dev';

/** On tool call updates: the permission question (or its answer) and the precise final status. */
export interface FerretToolMeta {
  /** The tool the call runs (ACP's tool_call has no name field). */
  tool?: string;
  status?: 'completed' | 'failed' | 'denied' | 'cancelled';
  permission?: { requestId?: string; risk?: string; reason?: string; rule?: string; decision?: string; by?: string };
}

/** On `session/request_permission`: what is asked, and why. */
export interface FerretPermissionMeta {
  requestId?: string;
  tool?: string;
  risk?: string;
  reason?: string;
  rule?: string;
}

/** On the initialize answer's `agentCapabilities._meta`. */
export interface FerretAgentMeta {
  version?: string;
  sandbox?: string;
  methods?: string[];
  notifications?: string[];
  /** This client's id in ferret; a later connection `continues` it (after a window reload). */
  clientId?: string;
}

export function ferretMeta<T>(meta: Record<string, unknown> | null | undefined): T | undefined {
  const v = meta?.[FERRET_NS];
  return v && typeof v === 'object' ? (v as T) : undefined;
}
