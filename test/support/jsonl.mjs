// Newline-delimited JSON off a stream. Plain Node ESM; types in jsonl.d.mts.
import { performance } from 'node:perf_hooks';

/**
 * Calls onMessage(msg, arrivalEpochMs, line) for every line a stream carries: one clock read per
 * chunk, so a 20,000-line burst stays cheap. Any line that is not JSON throws: on the ACP channel
 * that is the bug to surface.
 */
export function onJsonLines(stream, onMessage) {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (d) => {
    const t = performance.timeOrigin + performance.now();
    buf += d;
    let i;
    let start = 0;
    while ((i = buf.indexOf('\n', start)) >= 0) {
      const line = buf.slice(start, i);
      start = i + 1;
      onMessage(JSON.parse(line), t, line);
    }
    buf = buf.slice(start);
  });
  stream.on('end', () => {
    if (buf) onMessage(JSON.parse(buf), performance.timeOrigin + performance.now(), buf);
    buf = '';
  });
}
