/**
 * ferret logs JSON lines to stderr (pino). With --http one line has `"msg":"listening"` and the
 * bound `url`: that is where the same sessions can be watched over HTTP+SSE.
 */
export function listeningUrl(line: string): string | undefined {
  if (!line.includes('"listening"')) return undefined;
  try {
    const o = JSON.parse(line) as { msg?: unknown; url?: unknown };
    return o.msg === 'listening' && typeof o.url === 'string' ? o.url : undefined;
  } catch {
    return undefined;
  }
}

/** A readable form of one stderr line (pino JSON → "level msg"), for error messages. */
export function readableLogLine(line: string): string {
  try {
    const o = JSON.parse(line) as { msg?: unknown; err?: { message?: unknown } };
    const err = typeof o.err?.message === 'string' ? `: ${o.err.message}` : '';
    return typeof o.msg === 'string' ? `${o.msg}${err}` : line;
  } catch {
    return line;
  }
}
