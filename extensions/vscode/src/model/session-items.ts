export interface SessionSummary {
  sessionId: string;
  title?: string | null;
  updatedAt?: string | null;
  meta?: { costUsd?: number; model?: string } | undefined;
}

export interface SessionItem {
  label: string;
  description: string;
  detail?: string;
  sessionId: string;
}

/** "5 min ago", "3 h ago", "2 d ago". */
export function ago(iso: string | null | undefined, now: Date): string {
  if (!iso) return '';
  const s = Math.max(0, (now.getTime() - new Date(iso).getTime()) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** session/list → quick pick items: newest first, the session this workspace used last on top. */
export function sessionItems(sessions: SessionSummary[], lastId: string | undefined, now: Date): SessionItem[] {
  const sorted = [...sessions].sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  const last = sorted.findIndex((s) => s.sessionId === lastId);
  if (last > 0) sorted.unshift(...sorted.splice(last, 1));
  return sorted.map((s) => {
    const bits = [ago(s.updatedAt, now), s.meta?.model ?? '', s.meta?.costUsd !== undefined ? `$${s.meta.costUsd.toFixed(4)}` : ''].filter(Boolean);
    return {
      label: `${s.sessionId === lastId ? '$(history) ' : ''}${s.title ?? s.sessionId}`,
      description: bits.join(' · '),
      ...(s.sessionId === lastId ? { detail: 'last used in this workspace' } : {}),
      sessionId: s.sessionId,
    };
  });
}
