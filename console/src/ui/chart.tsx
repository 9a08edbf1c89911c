import type { TurnStat } from '../session-store.js';
import { tokens, usd } from './format.js';

const W = 280;
const H = 96;
const PAD = 4;

/** Tokens (bars: prompt below, reply above) and cost (the line) of each turn of the session. */
export function TurnChart({ turns }: { turns: TurnStat[] }) {
  const shown = turns.slice(-30);
  const maxTokens = Math.max(1, ...shown.map((t) => t.tokens));
  const maxUsd = Math.max(...shown.map((t) => t.usd), 0);
  const bw = (W - PAD * 2) / Math.max(shown.length, 1);
  const y = (v: number) => H - PAD - (v / maxTokens) * (H - PAD * 2);
  const yUsd = (v: number) => H - PAD - (maxUsd > 0 ? (v / maxUsd) * (H - PAD * 2) : 0);
  const last = shown.at(-1);
  const total = turns.reduce((s, t) => s + t.tokens, 0);
  const description = last
    ? `${turns.length} turns, ${tokens(total)} tokens in all; the last turn used ${tokens(last.tokens)} tokens and cost ${usd(last.usd)}.`
    : 'No turn has ended yet.';
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`Tokens and cost per turn. ${description}`}>
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} class="axis" />
        {shown.map((t, i) => {
          const w = Math.max(1, Math.min(bw * 0.7, 22));
          const x = PAD + i * bw + (bw - w) / 2;
          const prompt = t.input + t.cache;
          return (
            <g key={t.turnId}>
              <title>{`turn ${t.n}: ${tokens(prompt)} prompt + ${tokens(t.output + t.reasoning)} reply tokens, ${usd(t.usd)}`}</title>
              <rect x={x} y={y(prompt)} width={w} height={H - PAD - y(prompt)} class="bar-in" />
              <rect x={x} y={y(t.tokens)} width={w} height={y(prompt) - y(t.tokens)} class="bar-out" />
            </g>
          );
        })}
        {maxUsd > 0 && shown.length > 1 && (
          <polyline class="cost-line" fill="none" points={shown.map((t, i) => `${PAD + i * bw + bw / 2},${yUsd(t.usd)}`).join(' ')} />
        )}
      </svg>
      <figcaption>
        <span class="key key-in" aria-hidden="true" /> prompt <span class="key key-out" aria-hidden="true" /> reply <span class="key key-cost" aria-hidden="true" /> cost · per turn
      </figcaption>
    </figure>
  );
}
