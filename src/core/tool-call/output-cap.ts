/**
 * Default bytes of one tool result that reach the model, the clients and the log: 40 KiB, about
 * 10k tokens, in the range the peers use (Claude Code's Bash 30,000 characters, Gemini CLI 40,000,
 * opencode 50 KB). One `cat` of a large file no longer fills a fifth of a context window, and a
 * longer result is not lost: the whole of it is kept in a file the model pages through (kept-output.ts).
 */
export const DEFAULT_TOOL_OUTPUT_CAP = 40 * 1024;

/** Bytes kept from the end of a cut result: exit codes and a tool's own closing notes live there. */
const TAIL_BYTES = 4096;

/** Whether `output` is longer than `capBytes` of UTF-8 (and so cutParts cuts it). */
function exceedsCap(output: string, capBytes: number): boolean {
  // Fast path: a string of n UTF-16 units is at most 3n bytes.
  if (output.length * 3 <= capBytes) return false;
  return Buffer.byteLength(output, 'utf8') > capBytes;
}

/** A result cut at the cap: the head and tail kept, and the sizes the note reports. */
export interface CutParts {
  head: string;
  tail: string;
  omitted: number;
  total: number;
}

/** Where `output` is cut at about `capBytes` of UTF-8: its head and its last few KiB; undefined if it fits. */
export function cutParts(output: string, capBytes: number): CutParts | undefined {
  if (!exceedsCap(output, capBytes)) return undefined;
  const buf = Buffer.from(output, 'utf8');
  const tailBytes = Math.min(TAIL_BYTES, Math.floor(capBytes / 4));
  const head = decodeWhole(buf.subarray(0, capBytes - tailBytes), 'head');
  const tail = decodeWhole(buf.subarray(buf.length - tailBytes), 'tail');
  return { head, tail, omitted: buf.length - Buffer.byteLength(head) - Buffer.byteLength(tail), total: buf.length };
}

/**
 * The cut result, the one form every tool's capped result takes: head, a note that says plainly
 * how much was left out and how to read the rest (`how`: the kept file, or the tool's own advice), tail.
 */
export function joinCut(p: CutParts, capBytes: number, how: string | undefined): string {
  const rest = how ?? 'ask for a smaller part of it';
  return `${p.head}\n[output capped at ${capBytes} bytes: ${p.omitted} of ${p.total} bytes omitted here; ${rest}]\n${p.tail}`;
}

/** Decodes bytes cut at an arbitrary offset, dropping the partial character at the cut side. */
function decodeWhole(bytes: Buffer, keep: 'head' | 'tail'): string {
  const text = bytes.toString('utf8');
  // A split character decodes as U+FFFD at the cut edge; drop it rather than invent one.
  if (keep === 'head') return text.endsWith('\uFFFD') ? text.slice(0, -1) : text;
  return text.startsWith('\uFFFD') ? text.slice(1) : text;
}
