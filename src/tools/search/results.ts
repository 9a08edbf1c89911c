// What both engines hand back, file by file in path order, and how grep prints it. One place
// decides offset, limit and the three output modes, so the engines can differ only in what they
// find, never in how it is shown.

export type OutputMode = 'content' | 'files' | 'count';

export interface HitLine {
  /** 1-based line number. */
  n: number;
  text: string;
  /** A matching line (else a context line). */
  match: boolean;
}

/** One file's matching lines and the context lines around them, in line order. */
export interface FileHits {
  /** Relative to the workspace. */
  rel: string;
  lines: HitLine[];
}

export interface Paging {
  mode: OutputMode;
  offset: number;
  limit: number;
  before: number;
  after: number;
  maxLineChars: number;
}

/** Units paged: matching lines in content mode, files otherwise. */
export function unitsOf(mode: OutputMode, f: FileHits): number {
  return mode === 'content' ? f.lines.reduce((k, l) => k + (l.match ? 1 : 0), 0) : 1;
}

/** Collects files until one unit past the page is known (so it can say there is more). */
export class Collector {
  readonly files: FileHits[] = [];
  units = 0;
  constructor(readonly paging: Paging) {}

  /** How many units an engine should find before it may stop. */
  get need(): number {
    return this.paging.offset + this.paging.limit + 1;
  }

  /** Adds a file; true once enough is known. */
  add(f: FileHits): boolean {
    const k = unitsOf(this.paging.mode, f);
    if (k === 0) return this.full();
    this.files.push(f);
    this.units += k;
    return this.full();
  }

  full(): boolean {
    return this.units >= this.need;
  }

  /** The page as text, and whether more follows it. */
  render(): { text: string; shown: number; more: boolean } {
    const { mode, offset, limit, before, after, maxLineChars } = this.paging;
    const cut = (t: string) => (t.length > maxLineChars ? `${t.slice(0, maxLineChars)} …[line cut]` : t);
    const out: string[] = [];
    let seen = 0;
    let shown = 0;
    const context = before > 0 || after > 0;
    for (const f of this.files) {
      if (mode !== 'content') {
        if (seen++ < offset) continue;
        if (shown >= limit) break;
        shown++;
        out.push(mode === 'files' ? f.rel : `${f.rel}:${unitsOf('content', f)}`);
        continue;
      }
      // Content: the file's matches on this page, each with its context lines.
      const picked = new Set<number>();
      for (const l of f.lines) {
        if (!l.match) continue;
        if (seen++ < offset) continue;
        if (shown >= limit) break;
        shown++;
        picked.add(l.n);
      }
      if (picked.size === 0) continue;
      const wanted = (n: number) => {
        for (const p of picked) if (n >= p - before && n <= p + after) return true;
        return false;
      };
      let last = -1;
      for (const l of f.lines) {
        if (!(picked.has(l.n) || (context && wanted(l.n)))) continue;
        if (context && out.length > 0 && l.n !== last + 1) out.push('--');
        out.push(`${f.rel}${l.match ? ':' : '-'}${l.n}${l.match ? ':' : '-'}${cut(l.text)}`);
        last = l.n;
      }
      if (shown >= limit) break;
    }
    return { text: out.join('\n'), shown, more: this.units > offset + limit };
  }
}

/** A line as shown: without its line ending. */
export function lineText(raw: string): string {
  let t = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  if (t.endsWith('\r')) t = t.slice(0, -1);
  return t;
}
