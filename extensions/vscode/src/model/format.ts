import type { Usage } from './chat-model.js';

/** 1234 → "1.2k", 200000 → "200k". */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  const k = n / 1000;
  return `${k < 10 ? k.toFixed(1).replace(/\.0$/, '') : Math.round(k)}k`;
}

/** The cost/context line under the chat: "context 2.5k / 200k tokens · $0.0017". */
export function usageLine(u: Usage | undefined): string {
  if (!u) return '';
  const parts = [`context ${tokens(u.used)} / ${tokens(u.size)} tokens`];
  if (u.costUsd !== undefined) parts.push(`$${u.costUsd < 0.01 ? u.costUsd.toFixed(4) : u.costUsd.toFixed(2)}`);
  return parts.join(' · ');
}
