// Memory of a process. Plain Node ESM; types in rss.d.mts.
import { readFileSync } from 'node:fs';

/** A process's resident set size in KiB, from /proc (Linux): what the memory checks and benchmarks measure. */
export function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]);
}
