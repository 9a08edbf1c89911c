import type { PermissionOption, PermissionOptionKind, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { ferretMeta, type FerretPermissionMeta } from './ferret-meta.js';

export interface PermissionItem {
  label: string;
  description: string;
  optionId: string;
  kind: PermissionOptionKind;
}

export interface PermissionPrompt {
  title: string;
  /** Why it asks (ferret's reason); the risk is in the title. */
  detail: string;
  items: PermissionItem[];
}

const WORDS: Record<PermissionOptionKind, { label: string; description: string }> = {
  allow_once: { label: 'Allow', description: 'run this call once' },
  allow_always: { label: 'Always', description: 'allow it and remember (same tool and arguments in this workspace)' },
  reject_once: { label: 'Deny', description: 'refuse this call; the model is told the user denied it' },
  reject_always: { label: 'Never', description: 'refuse it and remember never to allow it' },
};
const ORDER: PermissionOptionKind[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

/** `session/request_permission` → the quick pick: allow / always / deny / never, with risk and reason. */
export function permissionPrompt(req: RequestPermissionRequest, cardTitle: string | undefined): PermissionPrompt {
  const meta = ferretMeta<FerretPermissionMeta>(req._meta);
  const what = cardTitle ?? req.toolCall.title ?? 'this call';
  const tool = meta?.tool ? `${meta.tool}: ` : '';
  const byKind = (k: PermissionOptionKind): PermissionOption | undefined => req.options.find((o) => o.kind === k);
  const items = ORDER.flatMap((k) => {
    const o = byKind(k);
    return o ? [{ label: WORDS[k].label, description: WORDS[k].description, optionId: o.optionId, kind: k }] : [];
  });
  const risky = meta?.risk ? ` (risk ${meta.risk})` : '';
  return { title: `Chimera asks: allow ${tool}${shorten(plain(what), TITLE_CHARS)}?${risky}`, detail: plain(meta?.reason ?? ''), items };
}

/** A quick pick's title is one line: past this, the command is cut at a word and the card shows it whole. */
const TITLE_CHARS = 90;

/** Markdown code spans as quotes: a quick pick shows text, and raw backticks read as noise. */
export function plain(text: string): string {
  return text.replace(/`([^`\n]+)`/g, '“$1”');
}

/** `text` cut at the last space before `max` (never inside a word or a quoted span), with an ellipsis. */
export function shorten(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  if (one.length <= max) return one;
  let cut = one.lastIndexOf(' ', max - 1);
  if (cut < max / 2) cut = max - 1;
  // Not inside a quoted span: back up to before its opening quote.
  const open = one.lastIndexOf('“', cut);
  if (open > 0 && open > one.lastIndexOf('”', cut)) cut = open;
  return `${one.slice(0, cut).trimEnd()} …`;
}

/** The decision word shown on the card for the option the person picked. */
export function decisionWord(kind: PermissionOptionKind | 'cancelled'): string {
  switch (kind) {
    case 'allow_once':
      return 'allowed';
    case 'allow_always':
      return 'always allowed';
    case 'reject_once':
      return 'denied';
    case 'reject_always':
      return 'never allowed';
    case 'cancelled':
      return 'withdrawn';
  }
}
