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
  return { title: `Chimera asks: allow ${tool}${what}?${risky}`, detail: meta?.reason ?? '', items };
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
