import { BACKGROUND_LIMITS, type NetHolder } from '../../sandbox/index.js';
import { OutputBuffer } from './output-buffer.js';

// A session's background processes (bash `background: true`): started by one call, they run past
// it, owned by the session, until they end, are stopped (process_kill), reach their lifetime, or
// the session closes (closed, released, deleted, or the server stops). The table also holds the
// session's shared network namespace, made with the first background process (net-holder.ts).

export type ExitReason = 'exited' | 'killed' | 'lifetime' | 'session_end';

/** Where the table's news goes: the session's events (process_started/_output/_exited). */
export interface ProcessSink {
  started(p: { processId: string; callId?: string; command: string }): void;
  output(processId: string, stream: 'stdout' | 'stderr', text: string): void;
  exited(p: { processId: string; exitCode: number | null; signal?: string; reason: ExitReason }): void;
}

/** A running command as the table drives it (bash.ts adapts the spawner's command to it). */
export interface BackgroundChild {
  onOutput(fn: (stream: 'stdout' | 'stderr', text: string) => void): void;
  write(text: string): void;
  /** Kills its process group and everything it started (its cgroup). */
  kill(): void;
  /** Resolves once it ended and what it started is gone (cgroup ended, placeholders released). */
  readonly done: Promise<{ exitCode: number | null; signal?: string }>;
}

export interface ProcessInfo {
  id: string;
  command: string;
  callId?: string;
  startedAt: number;
  running: boolean;
  exitCode?: number | null;
  reason?: ExitReason;
}

interface Entry {
  info: ProcessInfo;
  child: BackgroundChild;
  buffer: OutputBuffer;
  /** Output not yet written to the log, per stream, and how much was written so far. */
  pending: { stdout: string; stderr: string };
  logged: number;
  flushTimer: NodeJS.Timeout | undefined;
  lifetime: NodeJS.Timeout;
  /** Set when the table decided the end (kill, lifetime, session end): the exit says that reason. */
  endedBy?: ExitReason;
  exitEmitted: boolean;
  ended: Promise<void>;
}

export interface ProcessRead {
  text: string;
  /** Unread output dropped because the buffer was full since the last read. */
  dropped: number;
  /** Output that did not fit this read and waits for the next. */
  more: boolean;
  info: ProcessInfo;
}

export class ProcessTable {
  private readonly entries = new Map<string, Entry>();
  private next = 1;
  private closed = false;
  private holder: NetHolder | undefined;
  private holding: Promise<NetHolder | undefined> | undefined;

  constructor(
    private readonly sink: ProcessSink,
    private readonly limits: { perSession: number; lifetimeMs: number } = BACKGROUND_LIMITS,
  ) {}

  /** Why one more cannot start now, if it cannot. */
  refusal(): string | undefined {
    if (this.closed) return 'the session is closing';
    const running = this.list().filter((p) => p.running).length;
    if (running >= this.limits.perSession) {
      return `this session already runs ${running} background processes, the most it may (${this.limits.perSession}): stop one with process_kill first`;
    }
    return undefined;
  }

  /** Takes a started child into the table; its id is what process_output/_input/_kill take. */
  add(child: BackgroundChild, command: string, callId?: string): ProcessInfo {
    const id = `proc_${this.next++}`;
    const info: ProcessInfo = { id, command, startedAt: Date.now(), running: true, ...(callId ? { callId } : {}) };
    const e: Entry = {
      info,
      child,
      buffer: new OutputBuffer(BACKGROUND_LIMITS.bufferChars),
      pending: { stdout: '', stderr: '' },
      logged: 0,
      flushTimer: undefined,
      lifetime: setTimeout(() => this.end(e, 'lifetime'), this.limits.lifetimeMs),
      exitEmitted: false,
      ended: Promise.resolve(),
    };
    e.lifetime.unref();
    this.entries.set(id, e);
    this.sink.started({ processId: id, command, ...(callId ? { callId } : {}) });
    child.onOutput((stream, text) => {
      e.buffer.push(text);
      if (e.logged >= BACKGROUND_LIMITS.loggedChars) return;
      const room = BACKGROUND_LIMITS.loggedChars - e.logged;
      const piece = text.length > room ? text.slice(0, room) : text;
      e.logged += piece.length;
      e.pending[stream] += piece;
      if (e.logged >= BACKGROUND_LIMITS.loggedChars) e.pending[stream] += `\n[output of ${id} is no longer written to the session log past ${BACKGROUND_LIMITS.loggedChars} characters; process_output still reads it]\n`;
      e.flushTimer ??= setTimeout(() => this.flush(e), BACKGROUND_LIMITS.flushMs);
    });
    e.ended = child.done.then((r) => {
      clearTimeout(e.lifetime);
      this.flush(e);
      info.running = false;
      info.exitCode = r.exitCode;
      info.reason = e.endedBy ?? 'exited';
      this.emitExit(e, r.exitCode, r.signal);
    });
    return info;
  }

  anyRunning(): boolean {
    for (const e of this.entries.values()) if (e.info.running) return true;
    return false;
  }

  get(id: string): ProcessInfo | undefined {
    return this.entries.get(id)?.info;
  }

  list(): ProcessInfo[] {
    return [...this.entries.values()].map((e) => e.info);
  }

  /** New output since the last read (at most `max` characters; the rest stays for the next). */
  read(id: string, max: number = BACKGROUND_LIMITS.readChars): ProcessRead | undefined {
    const e = this.entries.get(id);
    if (!e) return undefined;
    const { text, dropped, more } = e.buffer.take(max);
    return { text, dropped, more, info: e.info };
  }

  write(id: string, text: string): boolean {
    const e = this.entries.get(id);
    if (!e || !e.info.running) return false;
    e.child.write(text);
    return true;
  }

  /** Stops one; resolves once it and what it started are gone. */
  async kill(id: string): Promise<ProcessInfo | undefined> {
    const e = this.entries.get(id);
    if (!e) return undefined;
    if (e.info.running) this.end(e, 'killed');
    await e.ended;
    return e.info;
  }

  /**
   * The session ends: every process is killed and its end recorded now, while the log is still
   * open (the exits that follow are not written again), and the shared namespace goes too.
   */
  closeAll(): void {
    if (this.closed) return;
    this.closed = true;
    for (const e of this.entries.values()) {
      if (!e.info.running) continue;
      this.end(e, 'session_end');
      this.flush(e);
      this.emitExit(e, null, 'SIGKILL');
    }
    this.holder?.stop();
    this.holder = undefined;
    void this.holding?.then((h) => h?.stop());
  }

  /** Resolves when every process of the table has ended (tests, and a stop that waits). */
  async settled(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.ended));
  }

  /** The shared network namespace's process, if there is one and it is still alive. */
  sharedNetns(): number | undefined {
    if (this.holder && !this.holder.alive()) {
      this.holder.stop();
      this.holder = undefined;
      this.holding = undefined;
    }
    return this.holder?.pid;
  }

  /** The shared namespace, made by `start` the first time (undefined when it cannot be made). */
  async netns(start: () => Promise<NetHolder>): Promise<number | undefined> {
    const have = this.sharedNetns();
    if (have !== undefined) return have;
    this.holding ??= start().then(
      (h) => {
        if (this.closed) {
          h.stop();
          return undefined;
        }
        this.holder = h;
        return h;
      },
      () => undefined,
    );
    const h = await this.holding;
    if (!h) this.holding = undefined; // try again next time
    return h?.pid;
  }

  private end(e: Entry, reason: ExitReason): void {
    e.endedBy ??= reason;
    e.child.kill();
  }

  private flush(e: Entry): void {
    clearTimeout(e.flushTimer);
    e.flushTimer = undefined;
    if (this.closed && e.exitEmitted) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      const text = e.pending[stream];
      if (!text) continue;
      e.pending[stream] = '';
      this.sink.output(e.info.id, stream, text);
    }
  }

  private emitExit(e: Entry, exitCode: number | null, signal: string | undefined): void {
    if (e.exitEmitted) return;
    e.exitEmitted = true;
    this.sink.exited({ processId: e.info.id, exitCode, ...(signal ? { signal } : {}), reason: e.endedBy ?? 'exited' });
  }
}
