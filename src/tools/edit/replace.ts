// Replacements in one file's text, in order, all or nothing: what edit_file and multi_edit share.
import { applyMatch, findText, type MatchHow } from './find-text.js';

export interface Replacement {
  old: string;
  new: string;
  all?: boolean;
}

export type Replaced = { ok: true; after: string; replaced: number; forgiven: MatchHow[] } | { ok: false; error: string };

/** Applies each replacement to the text the one before it left; `label(i)` names one in an error ("edit 2"). */
export function replaceAll(before: string, edits: readonly Replacement[], label: (i: number) => string): Replaced {
  let text = before;
  let replaced = 0;
  const forgiven: MatchHow[] = [];
  for (const [i, e] of edits.entries()) {
    if (e.old === e.new) return { ok: false, error: `${label(i)}: the old and new text are the same` };
    const found = findText(text, e.old, e.new, e.all === true);
    if (!found.ok) {
      return {
        ok: false,
        error:
          found.reason === 'ambiguous'
            ? `${label(i)}: the text occurs ${found.count} times; give more surrounding lines to pick one, or replace every one`
            : `${label(i)}: the text to replace was not found${i > 0 ? ' (after the edits before it were applied)' : ''}; read the file again and copy the text exactly`,
      };
    }
    text = applyMatch(text, found.match);
    replaced += found.match.spans.length;
    if (found.match.how !== 'exact' && !forgiven.includes(found.match.how)) forgiven.push(found.match.how);
  }
  return { ok: true, after: text, replaced, forgiven };
}

/** The sentence a result adds when a tolerant match was used, so the model knows its text was off. */
export function forgivenNote(forgiven: readonly MatchHow[]): string {
  return forgiven.length === 0 ? '' : ` (the text matched only when ignoring differences in ${forgiven.join(' and ')}; the replacement was adjusted to the file)`;
}

/** The refusal for a file that changed since the agent last saw it. */
export function staleRefusal(shown: string): string {
  return `${shown} changed since you last read or wrote it (a command, the person or another tool changed it): read it again with read_file, then make the edit against what it holds now`;
}
