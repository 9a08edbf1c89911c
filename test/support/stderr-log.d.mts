import type { Readable } from 'node:stream';

/** Keeps what a server says on stderr (only the tail past `limit` chars) so failures can quote it and callers can wait for a log line. */
export declare class StderrLog {
  /** @param opts.limit past this many chars only the last `keep` are kept (default: keep all) */
  constructor(stream: Readable, opts?: { limit?: number; keep?: number });
  /** Everything (or the tail) the stream carried so far. */
  readonly text: string;
  /** The stream has closed: no more text will come. */
  readonly ended: boolean;
  /** Resolves with the first defined `find(text)`; rejects when the stream ends first or after timeoutMs, quoting the text. */
  waitFor<T>(find: (text: string) => T | undefined, timeoutMs: number, what: string): Promise<T>;
}
