// grep's matching runs off the main thread: a pattern from the model (`^(a+)+$`, a
// backreference) can take exponential time, and the event loop serves every session. The worker
// reads each file itself (non-blocking opens, regular files only, the real path proved through
// /proc/self/fd) and posts matches as it goes; the caller terminates it on cancel or deadline,
// which stops even a running regular expression.
import { Worker } from 'node:worker_threads';

/** What one search asks the worker. */
export interface GrepJob {
  pattern: string;
  /** '' or 'i'. */
  flags: string;
  /** Absolute paths in search order, and each one's name in results (relative to the workspace). */
  files: string[];
  rels: string[];
  /** When set, a file whose real path is outside it is skipped (symlinks and swapped folders). */
  within?: string;
  /** Real paths never read (ferret's state). */
  blocked: readonly string[];
  maxFileBytes: number;
  /** Context lines sent around each match. */
  before: number;
  after: number;
  /** Stop once this many units were found: matching lines ('lines') or files ('files'). */
  need: number;
  unit: 'lines' | 'files';
}

export type GrepEnd = { kind: 'done' } | { kind: 'deadline' } | { kind: 'cancelled' } | { kind: 'error'; message: string };

/** One file's matches (and context lines) as the worker posts them. */
export interface WorkerFile {
  rel: string;
  lines: { n: number; text: string; match: boolean }[];
}

// Plain JS, run with { eval: true }: no imports of ours, nothing a bundler rewrites. It reads
// files as ripgrep does for the same result: regular files only, a file with a NUL byte is
// binary and skipped, lines split on \n (a \r is part of the line, dropped when shown).
const WORKER_SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { O_RDONLY, O_NONBLOCK } = fs.constants;
const inside = (root, p) => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};
const show = (t) => (t.endsWith('\r') ? t.slice(0, -1) : t);
parentPort.on('message', (job) => {
  let re;
  try {
    re = new RegExp(job.pattern, job.flags);
  } catch (e) {
    parentPort.postMessage({ type: 'error', message: String(e && e.message || e) });
    return;
  }
  let units = 0;
  for (let f = 0; f < job.files.length && units < job.need; f++) {
    const file = job.files[f];
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
    if (text.endsWith('\n')) lines.pop(); // the last line ending does not start a line
    const hits = [];
    for (let i = 0; i < lines.length; i++) if (re.test(lines[i])) hits.push(i);
    if (hits.length === 0) continue;
    const isHit = new Set(hits);
    const out = [];
    let next = 0; // first line index not yet sent
    for (const h of hits) {
      for (let i = Math.max(next, h - job.before); i < h; i++) out.push({ n: i + 1, text: show(lines[i]), match: false });
      if (h >= next) out.push({ n: h + 1, text: show(lines[h]), match: true });
      next = h + 1;
      // after-context up to the next match
      const stop = Math.min(lines.length, h + 1 + job.after);
      for (let i = next; i < stop && !isHit.has(i); i++) {
        out.push({ n: i + 1, text: show(lines[i]), match: false });
        next = i + 1;
      }
    }
    units += job.unit === 'files' ? 1 : hits.length;
    parentPort.postMessage({ type: 'file', file: { rel: job.rels[f], lines: out } });
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
 * Runs one search in a worker thread; `onFile` gets each file's matches as they come. Ends on completion,
 * on `signal`, or after `deadlineMs`, terminating the worker in the last two cases.
 */
export function grepInWorker(job: GrepJob, signal: AbortSignal, deadlineMs: number, onFile: (file: WorkerFile) => void): Promise<GrepEnd> {
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
    w.on('message', (m: { type: string; file?: WorkerFile; message?: string }) => {
      if (m.type === 'file' && m.file) onFile(m.file);
      else if (m.type === 'done') end({ kind: 'done' });
      else if (m.type === 'error') end({ kind: 'error', message: m.message ?? 'error' });
    });
    w.on('error', (err) => end({ kind: 'error', message: err.message }));
    w.on('exit', () => end({ kind: 'error', message: 'the search worker stopped' }));
    if (signal.aborted) onAbort();
    else w.postMessage(job);
  });
}
