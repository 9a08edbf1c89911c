// Small formatting helpers shared by the views.

export function usd(n: number): string {
  if (n === 0) return '$0.00';
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

export function tokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "12 s ago", "3 min ago", … (the exact time goes in a title). */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

/** The one line that says what a tool call does: its command, its path, or its arguments. */
export function toolSummary(tool: string, args: unknown): string {
  if (args && typeof args === 'object') {
    const a = args as Record<string, unknown>;
    for (const k of ['command', 'path', 'pattern', 'query', 'url']) if (typeof a[k] === 'string') return a[k];
    // task: the few words the model named it with (its agent first, when it named one).
    if (tool === 'task' && typeof a['description'] === 'string') return typeof a['agent'] === 'string' ? `${a['agent']}: ${a['description']}` : a['description'];
    // update_plan: its checklist is drawn apart; the card only counts.
    if (Array.isArray(a['entries'])) {
      const done = (a['entries'] as { status?: unknown }[]).filter((e) => e?.status === 'completed').length;
      return `plan: ${done} of ${a['entries'].length} done`;
    }
  }
  const text = JSON.stringify(args) ?? '';
  return text.length > 120 ? `${text.slice(0, 117)}…` : text || tool;
}

/** Who answered a permission request, for a person. */
export function answeredBy(by: string, mine: boolean): string {
  if (mine) return 'in this console';
  if (by === 'http') return 'over HTTP (another tab or a bot)';
  if (by.startsWith('acp')) return `in the editor (${by})`;
  if (by === 'timeout') return 'by the time-out';
  return by;
}

export const DECISION_TEXT = { allow: 'allowed once', deny: 'denied', always: 'always allowed', never: 'never allowed' } as const;

/**
 * Who sent a prompt, from its origin: this tab ("You"), another console, an editor over ACP, or a
 * bot by the name it gave (`x-ferret-client`); a nameless HTTP client is said to be one.
 */
export function speaker(origin: string | undefined, sentHere: boolean): string {
  if (sentHere || origin === 'this console') return 'You';
  if (origin === undefined) return 'User';
  if (origin === 'http:console') return 'Another console';
  if (origin.startsWith('http:')) return `${origin.slice(5)} (bot)`;
  if (origin === 'http') return 'An HTTP client';
  if (origin.startsWith('acp')) return 'Editor';
  return origin;
}
