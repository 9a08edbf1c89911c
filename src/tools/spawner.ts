import { spawn, type ChildProcess } from 'node:child_process';
import { scrubInitialEnviron } from '../sandbox/index.js';

/**
 * Commands are started by a small helper process, not by the server itself. Starting a process
 * from Node blocks its event loop for the fork, and a fork costs in proportion to the forking
 * process's memory (it copies the page tables): ~1 ms for a bare node, ~2 ms for one holding
 * 250 MB on the bench machine (the "tools" benchmark measures both). The helper (a bare node,
 * started once, in the background) forks instead, on the other core, and streams the output
 * back; the server only sends and receives small messages. The output it forwards per command
 * is bounded (what the caller keeps plus a margin): the rest is read and dropped in the helper.
 *
 * The helper's children are in their own process groups (kill them with killTree, from here);
 * bubblewrap's --die-with-parent follows the helper, which exits (killing its children) when
 * the server goes away.
 */

const HELPER_SRC = String.raw`
const { spawn } = require('node:child_process');
const { StringDecoder } = require('node:string_decoder');
const fs = require('node:fs');
const kids = new Map();
const send = (m) => { try { process.send(m); } catch {} };
process.on('disconnect', () => {
  for (const k of kids.values()) { try { process.kill(-k.c.pid, 'SIGKILL'); } catch {} }
  process.exit(0);
});
process.on('message', (m) => {
  if (m.op === 'abandon') {
    const k = kids.get(m.id);
    if (k) { k.c.stdout && k.c.stdout.destroy(); k.c.stderr && k.c.stderr.destroy(); }
    return;
  }
  if (m.op === 'input') {
    const k = kids.get(m.id);
    if (k && k.c.stdin && !k.c.stdin.destroyed) k.c.stdin.write(m.s);
    return;
  }
  if (m.op !== 'spawn') return;
  let c;
  let inFd;
  try {
    // A file as stdin (a long list of paths for git's --stdin): opened here, the child keeps its copy.
    if (m.stdinFile) inFd = fs.openSync(m.stdinFile, 'r');
    c = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, detached: true, stdio: [inFd !== undefined ? inFd : m.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    if (c.stdin) c.stdin.on('error', () => {});
  } catch (err) {
    return send({ id: m.id, op: 'exit', code: null, signal: null, error: 'could not start the command: ' + String(err && err.message || err) });
  } finally {
    if (inFd !== undefined) try { fs.closeSync(inFd); } catch {}
  }
  const k = { c, sent: 0, err: 0, done: false };
  kids.set(m.id, k);
  const finish = (code, signal, error) => {
    if (k.done) return;
    k.done = true;
    kids.delete(m.id);
    send({ id: m.id, op: 'exit', code, signal, error });
  };
  c.on('error', (err) => { if (c.pid === undefined) finish(null, null, 'could not start the command: ' + String(err && err.message || err)); });
  if (c.pid !== undefined) send({ id: m.id, op: 'pid', pid: c.pid });
  for (const stream of ['stdout', 'stderr']) {
    const d = new StringDecoder('utf8');
    const out = (s) => {
      if (!s) return;
      // Forward what the caller can keep (and stderr's head, for violation messages); drop the rest here.
      if (m.limit >= 0 && k.sent >= m.limit && !(stream === 'stderr' && k.err < 16384)) return;
      k.sent += s.length;
      if (stream === 'stderr') k.err += s.length;
      send({ id: m.id, op: 'data', stream, s });
    };
    c[stream].on('data', (b) => out(d.write(b)));
    c[stream].on('end', () => out(d.end()));
    c[stream].on('error', () => {});
  }
  c.on('close', (code, signal) => finish(code, signal));
});
`;

interface Pending {
  child: SpawnedCommand;
  /** A background command: it does not keep the server alive (the server's stop ends it). */
  background: boolean;
}

type HelperMessage =
  | { id: number; op: 'pid'; pid: number }
  | { id: number; op: 'data'; stream: 'stdout' | 'stderr'; s: string }
  | { id: number; op: 'exit'; code: number | null; signal: NodeJS.Signals | null; error?: string };

/** One output stream of a command, as strings (utf8, split characters joined). */
export class OutputStream {
  private listeners: ((s: string) => void)[] = [];
  destroyed = false;

  constructor(private readonly onDestroy: () => void) {}

  /** Output already arrives as utf8 strings; kept so callers can use it like a Node stream. */
  setEncoding(_enc: 'utf8'): this {
    return this;
  }

  on(_event: 'data', fn: (s: string) => void): this {
    this.listeners.push(fn);
    return this;
  }

  /** Stops waiting on the stream (a daemon that left the group may hold it open). */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.onDestroy();
  }

  push(s: string): void {
    if (this.destroyed) return;
    for (const l of this.listeners) l(s);
  }
}

export interface CommandResult {
  exitCode: number | undefined;
  signal: NodeJS.Signals | undefined;
  failed: boolean;
  /** Why there is no exit code when the command did not run to its end: it could not start, or the helper died. */
  message?: string;
}

/** A command started by the helper: its output streams, its process group, its end (await it). */
export class SpawnedCommand implements PromiseLike<CommandResult> {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  private pidKnown: number | undefined;
  private killWanted = false;
  private readonly done: Promise<CommandResult>;
  private resolve!: (r: CommandResult) => void;

  constructor(
    private readonly abandon: () => void,
    private readonly input: (s: string) => void = () => {},
  ) {
    this.stdout = new OutputStream(() => this.abandonIfBoth());
    this.stderr = new OutputStream(() => this.abandonIfBoth());
    this.done = new Promise((r) => (this.resolve = r));
  }

  get pid(): number | undefined {
    return this.pidKnown;
  }

  /** SIGKILLs the command's whole process group, now or as soon as its pid is known. */
  killTree(): void {
    if (this.pidKnown === undefined) {
      this.killWanted = true;
      return;
    }
    try {
      process.kill(-this.pidKnown, 'SIGKILL');
    } catch {
      /* group already gone */
    }
  }

  /** Writes to the command's stdin (started with `stdin: true`; otherwise dropped). */
  write(text: string): void {
    this.input(text);
  }

  private abandonIfBoth(): void {
    if (this.stdout.destroyed && this.stderr.destroyed) this.abandon();
  }

  /** @internal */
  started(pid: number): void {
    this.pidKnown = pid;
    if (this.killWanted) this.killTree();
  }

  /** @internal */
  ended(r: CommandResult): void {
    this.resolve(r);
  }

  then<A = CommandResult, B = never>(ok?: ((r: CommandResult) => A | PromiseLike<A>) | null, bad?: ((e: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
    return this.done.then(ok, bad);
  }
}

class Spawner {
  private helper: ChildProcess | undefined;
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  /** `path`: the PATH of the environment the caller was given (the helper's own; its commands get theirs). */
  private start(path: string | undefined): ChildProcess {
    if (this.helper && this.helper.connected) return this.helper;
    // Its commands could read this process's environ through /proc: scrubbed first (once; the
    // core does it just after start-up, this only makes the order certain).
    scrubInitialEnviron();
    const h = spawn(process.execPath, ['--max-old-space-size=64', '-e', HELPER_SRC], {
      // The helper's own environment holds nothing secret: each command gets its env explicitly.
      env: { PATH: path ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
    });
    h.on('message', (m: HelperMessage) => this.onMessage(m));
    const gone = (why: string) => {
      if (this.helper === h) this.helper = undefined;
      for (const [id, p] of this.pending) {
        this.pending.delete(id);
        // Its process group may outlive the helper (an unconfined command): nobody reads it any more.
        const started = p.child.pid !== undefined;
        p.child.killTree();
        const what = started ? 'its process group was killed' : 'it may not have started';
        p.child.ended({ exitCode: undefined, signal: undefined, failed: true, message: `the command helper process went away (${why}) before the command ended: its exit status is unknown (${what})` });
      }
    };
    h.on('exit', (code, signal) => gone(signal ? `killed by ${signal}` : `exit code ${code}`));
    h.on('error', (err) => gone(err.message));
    h.unref();
    (h.channel as { unref?: () => void } | undefined)?.unref?.();
    this.helper = h;
    return h;
  }

  get pid(): number | undefined {
    return this.helper?.connected ? this.helper.pid : undefined;
  }

  /** Starts the helper ahead of the first command (the idle warm-up). */
  warm(path: string | undefined): void {
    this.start(path);
  }

  spawn(file: string, args: string[], opts: { cwd: string; env: Record<string, string>; limit: number; stdin?: boolean; stdinFile?: string | undefined }): SpawnedCommand {
    const h = this.start(opts.env['PATH']);
    const id = this.next++;
    const child = new SpawnedCommand(
      () => h.connected && h.send({ op: 'abandon', id }),
      (s) => h.connected && h.send({ op: 'input', id, s }),
    );
    const background = opts.stdin === true;
    this.pending.set(id, { child, background });
    // A live command keeps the process alive, as an in-process child would (a background one does not).
    if (!background) (h.channel as { ref?: () => void } | undefined)?.ref?.();
    h.send({ op: 'spawn', id, file, args, cwd: opts.cwd, env: opts.env, limit: opts.limit, stdin: opts.stdin === true, ...(opts.stdinFile ? { stdinFile: opts.stdinFile } : {}) });
    return child;
  }

  private onMessage(m: HelperMessage): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.op === 'pid') p.child.started(m.pid);
    else if (m.op === 'data') (m.stream === 'stdout' ? p.child.stdout : p.child.stderr).push(m.s);
    else {
      this.pending.delete(m.id);
      if (![...this.pending.values()].some((q) => !q.background)) (this.helper?.channel as { unref?: () => void } | undefined)?.unref?.();
      p.child.ended({
        exitCode: m.code ?? undefined,
        signal: m.signal ?? undefined,
        failed: m.code !== 0,
        ...(m.error ? { message: m.error } : {}),
      });
    }
  }
}

const spawner = new Spawner();

/**
 * Starts a command in its own process group through the helper. `keepChars` is how much output
 * the caller keeps: at most that plus a margin is forwarded (and 16 K of stderr whatever the rest).
 */
export function spawnCommand(file: string, args: string[], opts: { cwd: string; env: Record<string, string>; keepChars: number; stdinFile?: string | undefined }): SpawnedCommand {
  return spawner.spawn(file, args, { cwd: opts.cwd, env: opts.env, limit: opts.keepChars + 64 * 1024, stdinFile: opts.stdinFile });
}

/**
 * Starts a background command (bash `background: true`): stdin is a pipe (SpawnedCommand.write),
 * and all of its output is forwarded: the caller keeps a bounded buffer of it (processes/).
 */
export function spawnBackground(file: string, args: string[], opts: { cwd: string; env: Record<string, string> }): SpawnedCommand {
  return spawner.spawn(file, args, { cwd: opts.cwd, env: opts.env, limit: -1, stdin: true });
}

/** Starts the helper now, so the first command does not wait for it; `env` is the server's environment, as data. */
export function warmSpawner(env: NodeJS.ProcessEnv): void {
  spawner.warm(env['PATH']);
}

/** The helper's pid while it runs (tests kill it to see what a command's caller gets then). */
export function spawnerPid(): number | undefined {
  return spawner.pid;
}

/**
 * Runs a short program through the helper and collects its exit code and output (stdout then
 * stderr, trimmed), killed after `timeoutMs`: the bubblewrap probe's runs (sandbox/confine), so
 * they are not forked from the server either.
 */
export function execInHelper(file: string, args: string[], env: Record<string, string>, timeoutMs = 10_000): Promise<{ code: number; out: string }> {
  const child = spawnCommand(file, args, { cwd: '/', env, keepChars: 64 * 1024 });
  let out = '';
  let err = '';
  child.stdout.on('data', (s) => (out += s));
  child.stderr.on('data', (s) => (err += s));
  const timer = setTimeout(() => child.killTree(), timeoutMs);
  return Promise.resolve(child).then((r) => {
    clearTimeout(timer);
    const code = r.exitCode ?? 1;
    return { code, out: `${out}${err}`.trim() || (r.message ?? (r.signal ? `killed by ${r.signal}` : '')) };
  });
}
