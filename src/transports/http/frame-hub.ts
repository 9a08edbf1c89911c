import type { SessionHandle, SessionEvent } from '../../core/index.js';
import { formatFrame, FrameMapper, isAfter, type FramePos } from './frames.js';
import { ideFold } from './ide-frames.js';

interface Formatted {
  pos: FramePos;
  text: string;
}

/** Frames kept per session for readers that resume; older ones are read back from the log. */
const WINDOW_FRAMES = 8192;
const IDE = ideFold.name;

/** A reader's place on a session's stream. Calling it stops the frames. */
export interface ReaderHandle {
  (): void;
  /** Settles when the frames before the live ones (a resume's replay) have all been written. */
  readonly ready: Promise<void>;
}

export interface ReaderOptions {
  /** Asked between chunks of a replay read from the log; a promise makes it wait (the socket's backpressure). */
  pace?: () => Promise<void> | undefined;
}

/**
 * One per session with SSE readers: maps each core event to frames once, formats each frame
 * once, and hands the same text to every reader (100 readers cost 100 socket writes, not 100
 * translations). It starts where the session is: the IDE translator's state comes from the fold
 * the core keeps at every seq, so no log is read to build it. Frames of events after `origin`
 * are in its window.
 */
export class FrameHub {
  private readonly ring: Formatted[] = [];
  private trimmed = false;
  private readonly readers = new Set<(f: Formatted) => void>();
  private readonly off: () => void;
  /** Every frame of every event after this seq went through this hub. */
  readonly origin: number;

  constructor(session: SessionHandle, mapper: FrameMapper, origin: number) {
    this.origin = origin;
    this.off = session.subscribe((e) => {
      for (const f of mapper.map(e)) {
        const formatted = { pos: f.pos, text: formatFrame(f) };
        this.ring.push(formatted);
        for (const r of this.readers) r(formatted);
      }
      if (this.ring.length > WINDOW_FRAMES * 2) {
        this.ring.splice(0, this.ring.length - WINDOW_FRAMES);
        this.trimmed = true;
      }
    });
  }

  /** Whether every frame after `cursor` is in the window (or is still to come). */
  covers(cursor: FramePos): boolean {
    if (cursor.seq <= this.origin) return false;
    const first = this.ring[0];
    return !this.trimmed || (first !== undefined && !isAfter(first.pos, cursor));
  }

  /**
   * Adds a reader: the frames after `cursor` (none when undefined: live from now), then every
   * new frame. Returns undefined when the window does not hold every frame after the cursor.
   */
  attach(cursor: FramePos | undefined, write: (text: string) => void): (() => void) | undefined {
    if (cursor) {
      if (!this.covers(cursor)) return undefined;
      for (const f of this.ring) if (isAfter(f.pos, cursor)) write(f.text);
    }
    // A cursor from the future (a client that saw another server's ids) only gets frames past it.
    const reader = cursor ? (f: Formatted) => isAfter(f.pos, cursor) && write(f.text) : (f: Formatted) => write(f.text);
    this.readers.add(reader);
    return () => this.readers.delete(reader);
  }

  get readerCount(): number {
    return this.readers.size;
  }

  close(): void {
    this.off();
    this.readers.clear();
  }
}

function handle(stop: () => void, ready: Promise<void>): ReaderHandle {
  return Object.assign(() => stop(), { ready });
}

/**
 * The hubs of one HTTP server: made on a session's first reader (at the session's current seq,
 * from the IDE fold's state), dropped with its last. A reader whose cursor the window does not
 * cover replays on its own from the log's checkpoint at or before the cursor, in chunks paced by
 * its socket, and then joins the hub.
 */
export class FrameHubs {
  private readonly hubs = new Map<string, FrameHub>();

  constructor(private readonly ideSchema: boolean) {}

  /** The session's hub, made now from the kept fold state; undefined when that state is not kept (then a replay makes it). */
  private hubOf(session: SessionHandle): FrameHub | undefined {
    const have = this.hubs.get(session.id);
    if (have) return have;
    const saved = this.ideSchema ? session.foldState(IDE) : undefined;
    if (this.ideSchema && saved === undefined && session.lastSeq > 0) return undefined;
    const hub = new FrameHub(session, new FrameMapper(session.id, this.ideSchema, saved), session.lastSeq);
    this.hubs.set(session.id, hub);
    return hub;
  }

  attach(session: SessionHandle, cursor: FramePos | undefined, write: (text: string) => void, opts: ReaderOptions = {}): ReaderHandle {
    const hub = this.hubOf(session);
    const off = hub?.attach(cursor, write);
    if (hub && off) {
      return handle(() => {
        off();
        this.release(session.id, hub);
      }, Promise.resolve());
    }
    if (hub) this.release(session.id, hub);
    return this.replay(session, cursor, write, opts);
  }

  /** A reader behind every hub's window: its own mapper from a checkpoint, then the hub. */
  private replay(session: SessionHandle, cursor: FramePos | undefined, write: (text: string) => void, opts: ReaderOptions): ReaderHandle {
    // No cursor here means the fold is not kept: fold from seq 1 and send only what comes next.
    const after: FramePos = cursor ?? { seq: session.lastSeq, k: Number.MAX_SAFE_INTEGER };
    let cp = session.checkpointAtOrBefore(after.seq);
    let ide = cp.folds[IDE];
    if (this.ideSchema && cp.seq > 0 && ide === undefined) {
      cp = { seq: 0, folds: {} };
      ide = undefined;
    }
    const mapper = new FrameMapper(session.id, this.ideSchema, ide);
    let last = after;
    let stopped = false;
    const listener = (e: SessionEvent) => {
      for (const f of mapper.map(e)) {
        if (!isAfter(f.pos, last)) continue;
        last = f.pos;
        write(formatFrame(f));
      }
    };
    const sub = session.subscribe(listener, cp.seq, opts.pace ? { pace: opts.pace } : {});
    let stop: () => void = sub;
    const ready = sub.caughtUp.then(() => {
      if (stopped) return;
      // Caught up: every event up to the session's last went through `mapper`. Join the hub
      // (or become it), with no gap: this step is synchronous.
      let hub = this.hubs.get(session.id);
      if (!hub) {
        hub = new FrameHub(session, mapper, session.lastSeq);
        this.hubs.set(session.id, hub);
      }
      const at: FramePos = { seq: session.lastSeq, k: Number.MAX_SAFE_INTEGER };
      const joined = hub.attach(isAfter(last, at) ? last : { seq: session.lastSeq + 1, k: -1 }, write);
      if (!joined) {
        this.release(session.id, hub);
        return; // the hub's window moved past us: stay on our own mapper
      }
      sub();
      const h = hub;
      stop = () => {
        joined();
        this.release(session.id, h);
      };
    });
    return handle(() => {
      stopped = true;
      stop();
    }, ready);
  }

  private release(id: string, hub: FrameHub): void {
    if (hub.readerCount > 0 || this.hubs.get(id) !== hub) return;
    hub.close();
    this.hubs.delete(id);
  }

  closeAll(): void {
    for (const h of this.hubs.values()) h.close();
    this.hubs.clear();
  }
}
