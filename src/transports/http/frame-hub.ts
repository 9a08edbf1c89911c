import type { Session } from '../../core/index.js';
import { formatFrame, FrameMapper, isAfter, type FramePos } from './frames.js';

interface Formatted {
  pos: FramePos;
  text: string;
}

/** Frames kept per session for readers that resume; older ones are rebuilt from the log. */
const WINDOW_FRAMES = 8192;

/**
 * One per session with SSE readers: maps each core event to frames once, formats each frame
 * once, and hands the same text to every reader (100 readers cost 100 socket writes, not 100
 * translations). Built by replaying the session from seq 1, so ids and counters match what any
 * reader ever saw.
 */
export class FrameHub {
  private readonly ring: Formatted[] = [];
  private trimmed = false;
  private readonly readers = new Set<(f: Formatted) => void>();
  private readonly off: () => void;

  constructor(session: Session, ideSchema: boolean) {
    const mapper = new FrameMapper(session.id, ideSchema);
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
    }, 0);
  }

  /**
   * Adds a reader: the frames after `cursor` (none when undefined: live from now), then every
   * new frame. Returns undefined when the window no longer reaches back to the cursor.
   */
  attach(cursor: FramePos | undefined, write: (text: string) => void): (() => void) | undefined {
    if (cursor) {
      const first = this.ring[0];
      if (this.trimmed && (!first || isAfter(first.pos, cursor))) return undefined;
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

/** The hubs of one HTTP server: made on a session's first reader, dropped with its last. */
export class FrameHubs {
  private readonly hubs = new Map<string, FrameHub>();

  constructor(private readonly ideSchema: boolean) {}

  attach(session: Session, cursor: FramePos | undefined, write: (text: string) => void): (() => void) | undefined {
    let hub = this.hubs.get(session.id);
    if (!hub) {
      hub = new FrameHub(session, this.ideSchema);
      this.hubs.set(session.id, hub);
    }
    const h = hub;
    const off = h.attach(cursor, write);
    if (!off) {
      this.release(session.id, h);
      return undefined;
    }
    return () => {
      off();
      this.release(session.id, h);
    };
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
