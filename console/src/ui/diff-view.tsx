import { useContext, useMemo, useState } from 'preact/hooks';
import { parseUnifiedDiff, sideBySide, type DiffLine } from '../diff.js';
import { languageOf } from '../highlight.js';
import { CodeText, relativePath, WorkspaceRoot } from './code-text.js';

const SIGN = { add: '+', del: '−', ctx: ' ', note: '' } as const;
const SAID = { add: 'added', del: 'removed', ctx: '', note: '' } as const;

function Line({ l, side, lang }: { l: DiffLine | undefined; side?: 'old' | 'new'; lang: string }) {
  if (!l) return <div class="dl dl-empty" aria-hidden="true" />;
  const num = side === 'old' ? l.old : side === 'new' ? l.new : undefined;
  return (
    <div class={`dl dl-${l.kind}`}>
      {side ? (
        <span class="ln" aria-hidden="true">
          {num ?? ''}
        </span>
      ) : (
        <>
          <span class="ln" aria-hidden="true">
            {l.old ?? ''}
          </span>
          <span class="ln" aria-hidden="true">
            {l.new ?? ''}
          </span>
        </>
      )}
      <span class="sign" aria-hidden="true">
        {SIGN[l.kind]}
      </span>
      {SAID[l.kind] && <span class="sr-only">{SAID[l.kind]}: </span>}
      <span class="dt">{l.kind === 'note' ? l.text : <CodeText code={l.text} lang={lang} />}</span>
    </div>
  );
}

/** A file edit's diff, inline or side by side (the choice is remembered for the page). */
export function DiffView({ path, diff }: { path: string; diff: string }) {
  const parsed = useMemo(() => parseUnifiedDiff(diff), [diff]);
  const shown = relativePath(path, useContext(WorkspaceRoot));
  const lang = languageOf(path);
  const [split, setSplit] = useState(() => sessionStorage.getItem('ferret.diff') === 'split');
  const choose = (s: boolean) => {
    setSplit(s);
    sessionStorage.setItem('ferret.diff', s ? 'split' : 'inline');
  };
  return (
    <section class="diff" aria-label={`diff of ${shown}`}>
      <header class="diff-head">
        <span class="diff-path" title={path}>
          {shown}
        </span>
        <span class="diff-count">
          <span class="plus">+{parsed.added}</span> <span class="minus">−{parsed.removed}</span>
        </span>
        <span class="seg" role="group" aria-label="diff layout">
          <button type="button" aria-pressed={!split} onClick={() => choose(false)}>
            Inline
          </button>
          <button type="button" aria-pressed={split} onClick={() => choose(true)}>
            Side by side
          </button>
        </span>
      </header>
      <div class={split ? 'diff-body diff-split' : 'diff-body diff-inline'} tabIndex={0} role="region" aria-label={`changes to ${shown}`}>
        {parsed.hunks.map((h, i) => (
          <div class="hunk" key={i}>
            {h.header && <div class="hunk-head">{h.header}</div>}
            {split
              ? sideBySide(h).map((r, k) => (
                  <div class="drow" key={k}>
                    <Line l={r.left} side="old" lang={lang} />
                    <Line l={r.right} side="new" lang={lang} />
                  </div>
                ))
              : h.lines.map((l, k) => <Line l={l} key={k} lang={lang} />)}
          </div>
        ))}
      </div>
    </section>
  );
}
