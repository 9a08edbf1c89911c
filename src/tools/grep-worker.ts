// grep's matching runs off the main thread: a pattern from the model (`^(a+)+$`, a
// backreference) can take exponential time, and the event loop serves every session. The worker
// reads each file itself (non-blocking opens, regular files only, the real path proved through
// /proc/self/fd) and posts matches as it goes; the caller terminates it on cancel or deadline,
// which stops even a running regular expression.
import { Worker } from 'node:worker_threads';

/** What one search asks the worker. */
export interface GrepJob {
  pattern: string;
  files: string[];
  /** Paths in results are relative to this. */
  cwd: string;
  /** When set, a file whose real path is outside it is skipped (symlinks and swapped folders). */
  within?: string;
  /** Real paths never read (ferret's state). */
  blocked: readonly string[];
  maxMatches: number;
  maxFileBytes: number;
  maxLineChars: number;
}

export type GrepEnd = { kind: 'done' } | { kind: 'deadline' } | { kind: 'cancelled' } | { kind: 'error'; message: string };

// Plain JS, run with { eval: true }: no imports of ours, nothing a bundler rewrites.
const WORKER_SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { O_RDONLY, O_NONBLOCK } = fs.constants;
const inside = (root, p) => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};
parentPort.on('message', (job) => {
  let re;
  try {
    re = new RegExp(job.pattern);
  } catch (e) {
    parentPort.postMessage({ type: 'error', message: String(e && e.message || e) });
    return;
  }
  let count = 0;
  job.files.sort();
  for (const file of job.files) {
    if (count >= job.maxMatches) break;
    let fd;
    try {
      fd = fs.openSync(file, O_RDONLY | O_NONBLOCK);
    } catch {
      continue;
    }
    let text;
    try {
      let real;
      try { real = fs.readlinkSync('/proc/self/fd/' + fd); } catch { real = fs.realpathSync(file); }
      if (job.within !== undefined && !inside(job.within, real)) continue;
      if (job.blocked.some((b) => inside(b, real))) continue;
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.size === 0 || st.size > job.maxFileBytes) continue;
      const buf = Buffer.alloc(st.size);
      let got = 0;
      while (got < buf.length) {
        const n = fs.readSync(fd, buf, got, buf.length - got, got);
        if (n === 0) break;
        got += n;
      }
      if (buf.subarray(0, got).includes(0)) continue; // binary
      text = buf.toString('utf8', 0, got);
    } catch {
      continue;
    } finally {
      fs.closeSync(fd);
    }
    const lines = text.split('\n');
    const hits = [];
    const rel = path.relative(job.cwd, file) || path.basename(file);
    for (let i = 0; i < lines.length && count < job.maxMatches; i++) {
      const line = lines[i];
      if (re.test(line)) {
        count++;
        hits.push(rel + ':' + (i + 1) + ':' + (line.length > job.maxLineChars ? line.slice(0, job.maxLineChars) + ' …[line cut]' : line));
      }
    }
    if (hits.length) parentPort.postMessage({ type: 'match', lines: hits });
  }
  parentPort.postMessage({ type: 'done' });
});
`;

let idle: Worker | undefined;

function takeWorker(): Worker {
  const w = idle ?? new Worker(WORKER_SOURCE, { eval: true, stdout: true, stderr: true });
  idle = undefined;
  w.ref();
  return w;
}

function giveBack(w: Worker): void {
  w.removeAllListeners('message');
  w.removeAllListeners('error');
  w.removeAllListeners('exit');
  if (idle) {
    void w.terminate();
    return;
  }
  w.unref(); // an idle worker never keeps the server alive
  idle = w;
}

/**
 * Runs one search in a worker thread; `onLines` gets matches as they come. Ends on completion,
 * on `signal`, or after `deadlineMs`, terminating the worker in the last two cases.
 */
export function grepInWorker(job: GrepJob, signal: AbortSignal, deadlineMs: number, onLines: (lines: string[]) => void): Promise<GrepEnd> {
  const w = takeWorker();
  return new Promise<GrepEnd>((resolve) => {
    let ended = false;
    const end = (e: GrepEnd) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (e.kind === 'done') giveBack(w);
      else void w.terminate();
      resolve(e);
    };
    const onAbort = () => end({ kind: 'cancelled' });
    const timer = setTimeout(() => end({ kind: 'deadline' }), deadlineMs);
    signal.addEventListener('abort', onAbort, { once: true });
    w.on('message', (m: { type: string; lines?: string[]; message?: string }) => {
      if (m.type === 'match' && m.lines) onLines(m.lines);
      else if (m.type === 'done') end({ kind: 'done' });
      else if (m.type === 'error') end({ kind: 'error', message: m.message ?? 'error' });
    });
    w.on('error', (err) => end({ kind: 'error', message: err.message }));
    w.on('exit', () => end({ kind: 'error', message: 'the search worker stopped' }));
    if (signal.aborted) onAbort();
    else w.postMessage(job);
  });
}
