// Shared helpers for the ferret benchmarks: spawn/kill bookkeeping, an ACP stdio client, an
// HTTP/SSE client, temp dirs and statistics. Plain Node ESM, no dependencies beyond node:*.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CHIMERA = join(ROOT, 'dist/cli/main.js');

/** Wall-clock ms (epoch) with sub-ms resolution, comparable to the server's Date.now(). */
export const nowEpoch = () => performance.timeOrigin + performance.now();
export const now = () => performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------- bookkeeping: every child and temp dir is released at the end, whatever happens ----------
const children = new Set();
const tempDirs = new Set();

export function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

export function tempDir(prefix) {
  const d = realpathSync(mkdtempSync(join(tmpdir(), `ferret-bench-${prefix}-`)));
  tempDirs.add(d);
  return d;
}

export function removeDir(d) {
  rmSync(d, { recursive: true, force: true });
  tempDirs.delete(d);
}

export function cleanupAll() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
  children.clear();
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
  tempDirs.clear();
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    cleanupAll();
    process.exit(130);
  });
}
process.on('exit', cleanupAll);

/** Rejects after ms so no benchmark can hang the run. */
export function withTimeout(p, ms, what) {
  let t;
  return Promise.race([
    p.finally(() => clearTimeout(t)),
    new Promise((_, rej) => (t = setTimeout(() => rej(new Error(`${what}: timed out after ${ms} ms`)), ms))),
  ]);
}

// ---------- statistics ----------
export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}
export const median = (xs) => percentile(xs, 50);

// ---------- processes ----------
export function rssKb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** Spawns `chimera ferret serve ARGS` with a private CHIMERA_HOME; speaks the ferret dialect on stdio. */
/** Calls `onMessage(msg, arrivalEpochMs)` for each JSON line a stream carries (one clock read per chunk). */
export function onJsonLines(stream, onMessage) {
  let buf = '';
  stream.setEncoding('utf8').on('data', (d) => {
    const t = nowEpoch();
    buf += d;
    let i;
    let start = 0;
    while ((i = buf.indexOf('\n', start)) >= 0) {
      const line = buf.slice(start, i);
      start = i + 1;
      if (line) onMessage(JSON.parse(line), t);
    }
    buf = buf.slice(start);
  });
}

export class Ferret {
  constructor(args, { home, cwd, env = {}, nodeArgs = [] } = {}) {
    this.home = home;
    this.t0 = now();
    this.child = track(
      spawn(process.execPath, [...nodeArgs, CHIMERA, 'ferret', 'serve', ...args], {
        cwd: cwd ?? ROOT,
        env: { ...process.env, CHIMERA_HOME: home, FERRET_LOG_LEVEL: 'info', ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    this.stderr = '';
    this.nextId = 1;
    this.pending = new Map();
    this.onUpdate = null; // (params, arrivalEpochMs) => void
    this.onStderr = null;
    this.child.stderr.setEncoding('utf8').on('data', (d) => {
      this.stderr += d;
      if (this.stderr.length > 1_000_000) this.stderr = this.stderr.slice(-200_000);
      this.onStderr?.(d);
    });
    onJsonLines(this.child.stdout, (msg, t) => this.handle(msg, t));
    this.exited = new Promise((r) =>
      this.child.on('exit', (code, sig) => {
        for (const p of this.pending.values()) p.reject(new Error(`ferret exited (${code ?? sig}); stderr: ${this.stderr.slice(-2000)}`));
        this.pending.clear();
        r(code);
      }),
    );
  }

  handle(msg, t) {
    if (msg.method === 'session/update') {
      this.onUpdate?.(msg.params, t);
      return;
    }
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${JSON.stringify(msg.error)}`));
      else p.resolve(msg.result);
    }
  }

  call(method, params = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  /** Resolves with the URL from the `"msg":"listening"` stderr line. */
  listening(timeoutMs = 15_000) {
    const find = () => {
      for (const line of this.stderr.split('\n')) {
        if (line.includes('"msg":"listening"')) return JSON.parse(line).url;
      }
      return undefined;
    };
    return withTimeout(
      new Promise((resolve, reject) => {
        const u = find();
        if (u) return resolve(u);
        this.onStderr = () => {
          const u2 = find();
          if (u2) {
            this.onStderr = null;
            resolve(u2);
          }
        };
        this.exited.then((c) => reject(new Error(`ferret exited (${c}) before listening: ${this.stderr.slice(-2000)}`)));
      }),
      timeoutMs,
      'listening',
    );
  }

  rssKb() {
    return rssKb(this.child.pid);
  }

  async kill() {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

// ---------- HTTP ----------
export const agent = new Agent({ keepAlive: true, maxSockets: 256 });

export function http(url, method, path, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(url + path, {
      method,
      agent,
      headers: data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed;
        try {
          parsed = text ? JSON.parse(text) : {};
        } catch {
          parsed = { raw: text };
        }
        resolve({ status: res.statusCode, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * An SSE reader on its own socket. mode 'parse' parses every loop_event's JSON and reports
 * message chunks with their arrival time; mode 'count' only counts frames (cheap, for fan-out).
 */
export class SseReader {
  constructor(url, path, { mode = 'count', onLoopEvent = null } = {}) {
    this.frames = 0;
    this.loopEvents = 0;
    this.results = 0;
    this.closed = false;
    this.error = null;
    this.onLoopEvent = onLoopEvent;
    this.waiters = [];
    let buf = '';
    this.req = httpRequest(url + path, { headers: { accept: 'text/event-stream' }, agent: false });
    this.opened = new Promise((resolve, reject) => {
      this.req.on('response', (res) => {
        this.res = res;
        res.setEncoding('utf8');
        res.on('data', (d) => {
          const t = nowEpoch();
          buf += d;
          let i;
          let start = 0;
          while ((i = buf.indexOf('\n\n', start)) >= 0) {
            const block = buf.slice(start, i);
            start = i + 2;
            if (block.startsWith(':')) continue;
            this.frames++;
            const ev = block.indexOf('event: ');
            const evEnd = block.indexOf('\n', ev);
            const name = block.slice(ev + 7, evEnd);
            if (name === 'loop_event') {
              this.loopEvents++;
              if (mode === 'parse' && this.onLoopEvent) {
                const di = block.indexOf('data: ', evEnd);
                this.onLoopEvent(JSON.parse(block.slice(di + 6)), t);
              }
            } else if (name === 'result') this.results++;
          }
          buf = buf.slice(start);
          if (this.waiters.length) this.waiters = this.waiters.filter((w) => (w.pred(this) ? (w.resolve(), false) : true));
        });
        const end = () => {
          this.closed = true;
          for (const w of this.waiters.splice(0)) w.reject(new Error('SSE stream closed'));
        };
        res.on('end', end);
        res.on('close', end);
        res.on('error', (e) => ((this.error = e), end()));
        resolve(res.statusCode);
      });
      this.req.on('error', (e) => {
        this.error = e;
        this.closed = true;
        for (const w of this.waiters.splice(0)) w.reject(e);
        reject(e);
      });
    });
    this.req.end();
  }

  waitFor(pred, timeoutMs = 60_000) {
    if (pred(this)) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('SSE stream closed'));
    return withTimeout(new Promise((resolve, reject) => this.waiters.push({ pred, resolve, reject })), timeoutMs, 'SSE wait');
  }

  close() {
    this.req.destroy();
    this.res?.destroy();
  }
}

// ---------- scripted models ----------
export function writeScript(dir, name, script) {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(script));
  return p;
}

export function chunkScript(n, turns = 1) {
  const chunks = Array.from({ length: n }, (_, i) => `w${i} `);
  return { responses: Array.from({ length: turns }, () => ({ chunks })) };
}

/** Event log `ts` (ms epoch) by seq, read after the turn (the writer flushes every tick). */
export function eventTsBySeq(home, sessionId) {
  const text = readFileSync(join(home, 'eventlog', `ferret-${sessionId}`, 'events.jsonl'), 'utf8');
  const m = new Map();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    m.set(e.seq, e.ts);
  }
  return m;
}

export const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
