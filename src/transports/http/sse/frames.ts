import type { SessionEvent } from '../../../core/index.js';
import { toFerretUpdate } from '../../../core/index.js';
import { restoreIdeTranslator, type IdeTranslator } from './ide-frames.js';

/** One SSE frame as it goes on the wire. */
export interface SseFrame {
  id: string;
  event: string;
  data: unknown;
}

/** A frame position: the event's seq and the frame's index among that event's frames. */
export interface FramePos {
  seq: number;
  k: number;
}

/** Frame ids are `${seq}` for an event's first frame and `${seq}.${k}` for its k-th extra one. */
export function frameId(p: FramePos): string {
  return p.k === 0 ? `${p.seq}` : `${p.seq}.${p.k}`;
}

/** Parses a Last-Event-ID; undefined when it is not one of ours. */
export function parseFrameId(id: string): FramePos | undefined {
  const m = /^(\d{1,15})(?:\.(\d{1,6}))?$/.exec(id.trim());
  if (!m) return undefined;
  return { seq: Number(m[1]), k: m[2] === undefined ? 0 : Number(m[2]) };
}

export function isAfter(p: FramePos, cursor: FramePos): boolean {
  return p.seq > cursor.seq || (p.seq === cursor.seq && p.k > cursor.k);
}

/** SSE text of one frame: id, event, one data line of JSON. */
export function formatFrame(f: SseFrame): string {
  return `id: ${f.id}\nevent: ${f.event}\ndata: ${JSON.stringify(f.data)}\n\n`;
}

/**
 * Core events of one session → its SSE frames, in order: the `loop_event`, then the IDE frames
 * (unless turned off), then `result` at a turn's end. Deterministic from seq 1, so a replay
 * reproduces the very frames (and ids) a live reader saw; `ideState` (the IDE fold's state the
 * core kept at some seq) starts it there instead.
 */
export class FrameMapper {
  private readonly ide: IdeTranslator | undefined;
  private seq = -1;
  private k = 0;

  constructor(sessionId: string, ideSchema: boolean, ideState?: unknown) {
    this.ide = ideSchema ? restoreIdeTranslator(sessionId, ideState) : undefined;
  }

  map(e: SessionEvent): (SseFrame & { pos: FramePos })[] {
    const raw: { event: string; data: unknown }[] = [];
    const update = toFerretUpdate(e);
    if (update) raw.push({ event: 'loop_event', data: update });
    if (this.ide) raw.push(...this.ide.translate(e));
    if (e.type === 'turn_end') {
      raw.push({ event: 'result', data: { turnId: e.data.turnId, stopReason: e.data.stopReason, message: { role: 'assistant', text: e.data.text } } });
    }
    // Frame indexes restart with each event's seq.
    if (e.seq !== this.seq) {
      this.seq = e.seq;
      this.k = 0;
    }
    const out: (SseFrame & { pos: FramePos })[] = [];
    for (const f of raw) {
      const pos = { seq: e.seq, k: this.k++ };
      out.push({ event: f.event, data: f.data, id: frameId(pos), pos });
    }
    return out;
  }
}
