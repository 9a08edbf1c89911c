import type { Readable } from 'node:stream';

/**
 * Calls onMessage(msg, arrivalEpochMs, line) for every line a stream carries: one clock read per
 * chunk, so a 20,000-line burst stays cheap. Any line that is not JSON throws: on the ACP channel
 * that is the bug to surface.
 */
export declare function onJsonLines(stream: Readable, onMessage: (msg: any, arrivalEpochMs: number, line: string) => void): void; // eslint-disable-line @typescript-eslint/no-explicit-any
