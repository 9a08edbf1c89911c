// A ferret-dialect ACP client (docs/acp-ferret.md) on the real pipes of a spawned server.
// Plain Node ESM; types in ferret-client.d.mts.
import { performance } from 'node:perf_hooks';
import { listeningUrl } from './http.mjs';
import { onJsonLines } from './jsonl.mjs';
import { exited, spawnFerret, stopChild } from './spawn.mjs';
import { StderrLog } from './stderr-log.mjs';

/**
 * Spawns `chimera ferret serve ARGS`, speaks newline-delimited JSON-RPC, and records every line it
 * gets (unless record: false) so callers can assert what a user's editor would see. A server that
 * dies fails every pending request and wait at once, quoting its stderr.
 */
export class FerretClient {
  constructor(args, env = {}, { cwd, record = true, timeoutMs = 10_000, stderrLimit, uid, gid } = {}) {
    this.args = args;
    this.record = record;
    this.timeoutMs = timeoutMs;
    this.messages = [];
    this.stdoutLines = [];
    this.onUpdate = undefined;
    this.nextId = 1;
    this.pending = new Map();
    this.waiters = new Set();
    this.dead = false;
    this.startedAt = performance.now();
    this.child = spawnFerret(args, { env, cwd, uid, gid });
    this.log = new StderrLog(this.child.stderr, { limit: stderrLimit });
    this.child.stdin.on('error', () => {}); // EPIPE from a server that died: the exit handler below reports it
    onJsonLines(this.child.stdout, (msg, t, line) => this.handle(msg, t, line));
    this.exited = exited(this.child);
    this.child.once('exit', (code, signal) => {
      this.dead = true;
      const err = () => new Error(`chimera exited (${code ?? signal}); stderr:\n${this.stderr}`);
      for (const p of this.pending.values()) p.reject(err());
      this.pending.clear();
      for (const w of this.waiters) w.reject(err());
      this.waiters.clear();
    });
  }

  /** Everything the server wrote to stderr so far. */
  get stderr() {
    return this.log.text;
  }

  handle(msg, t, line) {
    if (this.record) {
      this.stdoutLines.push(line);
      this.messages.push(msg);
    }
    if (this.onUpdate && msg.method === 'session/update') this.onUpdate(msg.params, t);
    if (msg.id !== undefined && ('result' in msg || 'error' in msg)) {
      const p = this.pending.get(msg.id);
      if (p) {
        this.pending.delete(msg.id);
        p.resolve(msg);
      }
    }
    for (const w of this.waiters) {
      if (w.pred(msg)) {
        this.waiters.delete(w);
        w.resolve(msg);
      }
    }
  }

  sendRaw(line) {
    this.child.stdin.write(line + '\n');
  }

  /** Sends a request and resolves with the whole response (result or error). */
  request(method, params, id = this.nextId++) {
    if (this.dead) return Promise.reject(new Error(`chimera has exited; stderr:\n${this.stderr}`));
    const p = new Promise((resolve, reject) => {
      const t = this.timeoutMs > 0 ? setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`timed out waiting for the answer to ${method} (id ${JSON.stringify(id)}); stderr:\n${this.stderr}`));
      }, this.timeoutMs) : undefined;
      this.pending.set(id, {
        resolve: (m) => (clearTimeout(t), resolve(m)),
        reject: (e) => (clearTimeout(t), reject(e)),
      });
    });
    this.sendRaw(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) }));
    return p;
  }

  /** Like request, but resolves with the result and rejects on an error answer. */
  async call(method, params) {
    const r = await this.request(method, params);
    if (r.error) throw new Error(`${method} failed: ${JSON.stringify(r.error)}`);
    return r.result;
  }

  /** Resolves with the first message (already recorded, or still to come) matching pred. */
  waitFor(pred, timeoutMs = 10_000) {
    const seen = this.messages.find(pred);
    if (seen) return Promise.resolve(seen);
    if (this.dead) return Promise.reject(new Error(`chimera has exited; stderr:\n${this.stderr}`));
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiters.delete(w);
        reject(new Error(`timed out waiting; stderr:\n${this.stderr}`));
      }, timeoutMs);
      const w = {
        pred,
        resolve: (m) => (clearTimeout(t), resolve(m)),
        reject: (e) => (clearTimeout(t), reject(e)),
      };
      this.waiters.add(w);
    });
  }

  /** The params of every session/update so far (of one session, when given). */
  updates(sessionId) {
    return this.messages
      .filter((m) => m.method === 'session/update' && (!sessionId || m.params?.sessionId === sessionId))
      .map((m) => m.params);
  }

  /** The kinds of those updates, in order. */
  kinds(sessionId) {
    return this.updates(sessionId).map((u) => u.kind);
  }

  /** With --http: the URL from the "listening" log line (FERRET_LOG_LEVEL info or lower). */
  listening(timeoutMs) {
    return listeningUrl(this.log, timeoutMs);
  }

  /** Ends stdin the way an editor quits (plus SIGTERM with --http, which outlives stdin by design); SIGKILL after 5 s. */
  async close() {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.stdin.end();
    return stopChild(this.child, this.args.includes('--http') ? 'SIGTERM' : null);
  }

  /** SIGTERM, the way an operator stops a server; SIGKILL after 5 s. */
  stop() {
    return stopChild(this.child, 'SIGTERM');
  }

  /** SIGKILL, and the exit. */
  kill() {
    return stopChild(this.child, 'SIGKILL');
  }
}

/** Spawns `chimera ferret serve --http --port 0 ARGS` (stdio stays open) and learns its URL from the listening log line. */
export async function startHttp(args, env = {}) {
  const proc = new FerretClient(['--http', '--port', '0', ...args], { FERRET_LOG_LEVEL: 'info', ...env });
  try {
    return { proc, url: await proc.listening() };
  } catch (e) {
    proc.child.kill('SIGKILL');
    throw e;
  }
}
