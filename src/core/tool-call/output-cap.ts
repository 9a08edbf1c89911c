/** Default bytes of one tool result that reach the model, the clients and the log. */
export const DEFAULT_TOOL_OUTPUT_CAP = 256 * 1024;

/** Bytes kept from the end of a cut result: exit codes and a tool's own closing notes live there. */
const TAIL_BYTES = 4096;

/**
 * Caps a tool result at about `capBytes` of UTF-8, keeping its head and its last few KiB, and
 * says where it was cut and how to read the rest: the one cap every tool's result passes.
 */
export function capOutput(output: string, capBytes: number, readMore: string | undefined): { output: string; cut: boolean } {
  // Fast path: a string of n UTF-16 units is at most 3n bytes.
  if (output.length * 3 <= capBytes) return { output, cut: false };
  const buf = Buffer.from(output, 'utf8');
  if (buf.length <= capBytes) return { output, cut: false };
  const tailBytes = Math.min(TAIL_BYTES, Math.floor(capBytes / 4));
  const head = decodeWhole(buf.subarray(0, capBytes - tailBytes), 'head');
  const tail = decodeWhole(buf.subarray(buf.length - tailBytes), 'tail');
  const omitted = buf.length - Buffer.byteLength(head) - Buffer.byteLength(tail);
  const how = readMore ?? 'ask for a smaller part of it';
  return { output: `${head}\n[output capped at ${capBytes} bytes: ${omitted} of ${buf.length} bytes omitted here; ${how}]\n${tail}`, cut: true };
}

/** Decodes bytes cut at an arbitrary offset, dropping the partial character at the cut side. */
function decodeWhole(bytes: Buffer, keep: 'head' | 'tail'): string {
  const text = bytes.toString('utf8');
  // A split character decodes as U+FFFD at the cut edge; drop it rather than invent one.
  if (keep === 'head') return text.endsWith('\uFFFD') ? text.slice(0, -1) : text;
  return text.startsWith('\uFFFD') ? text.slice(1) : text;
}
