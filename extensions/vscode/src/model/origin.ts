// Who sent a prompt in a shared session, from ferret's `origin` on user_message_chunk
// (`_meta["ferret.dev"].origin`): a bot by the name it gave in `x-ferret-client`, the web console,
// another editor. This window's own prompts are not echoed live, so an echo is someone else's;
// in a history replay an editor's prompt may be this person's own, so it gets no label.

import { ferretMeta } from './ferret-meta.js';

/** The label shown above a prompt, or undefined for "you" (no label). */
export function senderLabel(meta: Record<string, unknown> | null | undefined, replaying: boolean): string | undefined {
  const origin = ferretMeta<{ origin?: unknown }>(meta)?.origin;
  if (typeof origin !== 'string' || origin === '') return undefined;
  if (origin === 'http:console') return 'web console';
  if (origin.startsWith('http:')) return origin.slice(5);
  if (origin === 'http') return 'an HTTP client';
  if (origin.startsWith('acp')) return replaying ? undefined : 'another editor';
  return origin;
}
