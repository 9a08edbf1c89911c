// The patch format GPT-5 and codex models are trained to write (an interface, so it is kept as
// they know it): `*** Begin Patch`, then per file `*** Add File: p` (every line `+`),
// `*** Delete File: p`, or `*** Update File: p` (optionally `*** Move to: q`) with hunks: an
// `@@` line (optionally followed by a line of the file to find first), then lines starting with
// ` ` (kept), `-` (removed) or `+` (added), and `*** End of File` when a hunk ends the file;
// `*** End Patch` closes it. Text around the markers (a shell heredoc the model wrapped it in) is ignored.

export interface HunkLine {
  kind: ' ' | '-' | '+';
  text: string;
}

export interface Hunk {
  /** The text after `@@ `: a line to find before the hunk's own lines (a function's signature). */
  anchor?: string;
  lines: HunkLine[];
  /** The hunk's lines end the file. */
  atEnd: boolean;
  /** Where the hunk starts in the patch (1-based, its `@@` line when it has one): errors quote it. */
  line: number;
}

export type PatchOp =
  | { type: 'add'; path: string; content: string }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; moveTo?: string; hunks: Hunk[] };

export type ParsedPatch = { ok: true; ops: PatchOp[] } | { ok: false; error: string };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARK = '*** End of File';

export function parsePatch(text: string): ParsedPatch {
  const all = text.replace(/\r\n/g, '\n').split('\n');
  const begin = all.findIndex((l) => l.trim() === BEGIN);
  if (begin < 0) return { ok: false, error: `the patch must start with "${BEGIN}"` };
  let end = -1;
  for (let i = all.length - 1; i > begin; i--) if (all[i]!.trim() === END) end = i;
  if (end < 0) return { ok: false, error: `the patch must end with "${END}"` };
  const lines = all.slice(begin + 1, end);
  const ops: PatchOp[] = [];
  const seen = new Set<string>();
  let i = 0;
  const fileHeader = (l: string) => l.startsWith(ADD) || l.startsWith(DELETE) || l.startsWith(UPDATE);
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const at = `line ${begin + 2 + i}`;
    const path = (prefix: string) => line.slice(prefix.length).trim();
    let op: PatchOp;
    if (line.startsWith(ADD)) {
      const body: string[] = [];
      for (i++; i < lines.length && !fileHeader(lines[i]!); i++) {
        const l = lines[i]!;
        if (!l.startsWith('+')) return { ok: false, error: `${ADD}${path(ADD)}: every line of a new file starts with "+" (${`line ${begin + 2 + i}`}: ${JSON.stringify(l.slice(0, 60))})` };
        body.push(l.slice(1));
      }
      op = { type: 'add', path: path(ADD), content: body.length ? body.join('\n') + '\n' : '' };
    } else if (line.startsWith(DELETE)) {
      op = { type: 'delete', path: path(DELETE) };
      i++;
    } else if (line.startsWith(UPDATE)) {
      const update: PatchOp = { type: 'update', path: path(UPDATE), hunks: [] };
      i++;
      if (lines[i]?.startsWith(MOVE)) {
        update.moveTo = lines[i]!.slice(MOVE.length).trim();
        i++;
      }
      let hunk: Hunk | undefined;
      for (; i < lines.length && !fileHeader(lines[i]!); i++) {
        const l = lines[i]!;
        if (l.startsWith('@@')) {
          const anchor = l.slice(2).trim();
          hunk = { lines: [], atEnd: false, line: begin + 2 + i, ...(anchor ? { anchor } : {}) };
          update.hunks.push(hunk);
          continue;
        }
        if (l.trim() === EOF_MARK) {
          if (hunk) hunk.atEnd = true;
          continue;
        }
        if (!hunk) {
          // The first hunk may come without its `@@` line.
          hunk = { lines: [], atEnd: false, line: begin + 2 + i };
          update.hunks.push(hunk);
        }
        const kind = l[0];
        if (kind === ' ' || kind === '-' || kind === '+') hunk.lines.push({ kind, text: l.slice(1) });
        else if (l === '') hunk.lines.push({ kind: ' ', text: '' }); // a blank context line whose space was trimmed
        else return { ok: false, error: `${UPDATE}${update.path}, line ${begin + 2 + i}: a hunk line starts with " ", "-" or "+" (got ${JSON.stringify(l.slice(0, 60))})` };
      }
      const empty = update.hunks.findIndex((h) => !h.lines.some((x) => x.kind !== ' '));
      if (update.hunks.length === 0 && !update.moveTo) return { ok: false, error: `${UPDATE}${update.path}: no hunk changes anything` };
      if (empty >= 0) return { ok: false, error: `${UPDATE}${update.path}: hunk ${empty + 1} (patch line ${update.hunks[empty]!.line}) changes nothing (no "-" or "+" line)` };
      op = update;
    } else {
      return { ok: false, error: `${at}: expected "${ADD}", "${UPDATE}" or "${DELETE}", got ${JSON.stringify(line.slice(0, 60))}` };
    }
    if (!op.path) return { ok: false, error: `${at}: a file header without a path` };
    for (const p of op.type === 'update' && op.moveTo ? [op.path, op.moveTo] : [op.path]) {
      if (seen.has(p)) return { ok: false, error: `${p} appears twice in the patch; put all of a file's changes under one header` };
      seen.add(p);
    }
    ops.push(op);
  }
  if (ops.length === 0) return { ok: false, error: 'the patch changes no file' };
  return { ok: true, ops };
}

/** Every path a patch touches, as written (sources, targets of moves). */
export function patchPaths(text: string): string[] {
  const p = parsePatch(text);
  if (!p.ok) return [];
  return p.ops.flatMap((op) => (op.type === 'update' && op.moveTo ? [op.path, op.moveTo] : [op.path]));
}
