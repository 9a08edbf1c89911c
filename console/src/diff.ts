// Unified diffs (the `--- / +++ / @@` text of a file_edit) as rows for the inline and the
// side-by-side views. Anything that is not a diff line (a "too large to show" summary) is kept
// as a note row, so nothing the server sent is ever dropped.

export interface DiffLine {
  kind: 'ctx' | 'add' | 'del' | 'note';
  text: string;
  /** Line number in the old file (ctx, del) and in the new one (ctx, add). */
  old?: number;
  new?: number;
}

export interface Hunk {
  header: string;
  lines: DiffLine[];
}

export interface ParsedDiff {
  oldPath: string | undefined;
  newPath: string | undefined;
  hunks: Hunk[];
  added: number;
  removed: number;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/;

export function parseUnifiedDiff(text: string): ParsedDiff {
  const out: ParsedDiff = { oldPath: undefined, newPath: undefined, hunks: [], added: 0, removed: 0 };
  let hunk: Hunk | undefined;
  let o = 0;
  let n = 0;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (!hunk && line.startsWith('--- ')) {
      out.oldPath = line.slice(4).split('\t')[0];
      continue;
    }
    if (!hunk && line.startsWith('+++ ')) {
      out.newPath = line.slice(4).split('\t')[0];
      continue;
    }
    const h = HUNK.exec(line);
    if (h) {
      hunk = { header: line, lines: [] };
      out.hunks.push(hunk);
      o = Number(h[1]);
      n = Number(h[2]);
      continue;
    }
    if (!hunk) {
      hunk = { header: '', lines: [] };
      out.hunks.push(hunk);
    }
    const mark = line[0];
    const body = line.slice(1);
    if (mark === ' ') hunk.lines.push({ kind: 'ctx', text: body, old: o++, new: n++ });
    else if (mark === '-') {
      hunk.lines.push({ kind: 'del', text: body, old: o++ });
      out.removed++;
    } else if (mark === '+') {
      hunk.lines.push({ kind: 'add', text: body, new: n++ });
      out.added++;
    } else if (mark === '\\') hunk.lines.push({ kind: 'note', text: line.slice(2) });
    else hunk.lines.push({ kind: 'note', text: line });
  }
  return out;
}

/** One row of the side-by-side view: the old line on the left, the new one on the right. */
export interface SideRow {
  left: DiffLine | undefined;
  right: DiffLine | undefined;
}

/** Pairs each run of removed lines with the added lines that follow it; context lines sit on both sides. */
export function sideBySide(hunk: Hunk): SideRow[] {
  const rows: SideRow[] = [];
  let dels: DiffLine[] = [];
  let adds: DiffLine[] = [];
  const flush = () => {
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) rows.push({ left: dels[k], right: adds[k] });
    dels = [];
    adds = [];
  };
  for (const l of hunk.lines) {
    if (l.kind === 'del') {
      if (adds.length) flush();
      dels.push(l);
    } else if (l.kind === 'add') adds.push(l);
    else {
      flush();
      rows.push(l.kind === 'ctx' ? { left: l, right: l } : { left: l, right: undefined });
    }
  }
  flush();
  return rows;
}
