import { createContext } from 'preact';
import { useMemo } from 'preact/hooks';
import { highlight } from '../highlight.js';

// Highlighted code as spans of text (never HTML), and the workspace folder that file paths are
// shown relative to.

/** The session's folder (`cwd`); diff headers name files relative to it. */
export const WorkspaceRoot = createContext<string | undefined>(undefined);

/** `path` relative to `root` when it lies inside it; else as given. */
export function relativePath(path: string, root: string | undefined): string {
  if (!root) return path;
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

export function CodeText({ code, lang }: { code: string; lang: string }) {
  const tokens = useMemo(() => highlight(code, lang), [code, lang]);
  return (
    <>
      {tokens.map((t, i) =>
        t.k === 'plain' ? (
          t.v
        ) : (
          <span key={i} class={`tok-${t.k}`}>
            {t.v}
          </span>
        ),
      )}
    </>
  );
}
