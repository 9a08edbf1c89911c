// Following a Server-Sent Events stream (GET /session/:id/events) on its own socket.
// Plain Node ESM; types in sse.d.mts.
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** One dispatched SSE event; `data` is the JSON of `text`, parsed on first use (counting readers never pay for it). */
export class SseFrame {
  constructor(id, event, text) {
    this.id = id;
    this.event = event;
    this.text = text;
  }

  get data() {
    if (this.parsed === undefined) this.parsed = { value: JSON.parse(this.text) };
    return this.parsed.value;
  }
}

/**
 * An SSE reader: parses id/event/data/retry fields and comments (LF-framed, as ferret sends),
 * resumes with Last-Event-ID, keeps every frame (unless keep: false) and counts them per event,
 * can start paused (a reader that stops reading) and be cut mid-stream.
 */
export class SseClient {
  constructor(url, path, { token, lastEventId, paused = false, keep = true, onFrame } = {}) {
    this.frames = [];
    this.total = 0;
    this.comments = 0;
    this.counts = new Map();
    this.lastEventId = lastEventId ?? '';
    this.retryMs = undefined;
    this.res = undefined;
    this.closed = false;
    this.error = undefined;
    this.keep = keep;
    this.onFrame = onFrame;
    this.waiters = new Set();
    this.buf = '';
    let endResolve;
    this.ended = new Promise((r) => (endResolve = r));
    const end = (e) => {
      if (e && !this.error) this.error = e;
      if (this.closed) return;
      this.closed = true;
      endResolve();
      for (const w of this.waiters) w.check();
    };
    this.req = request(url + path, {
      headers: {
        accept: 'text/event-stream',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      agent: false,
    });
    this.opened = new Promise((resolve, reject) => {
      this.req.on('response', (res) => {
        this.res = res;
        res.setEncoding('utf8');
        if (paused) res.pause(); // before the data listener, which would otherwise start the flow
        res.on('data', (d) => this.feed(d));
        res.on('end', () => end());
        res.on('close', () => end());
        res.on('error', (e) => end(e));
        resolve(res.statusCode ?? 0);
      });
      this.req.on('error', (e) => {
        if (!this.res) reject(e);
        end(e);
      });
    });
    this.req.end();
  }

  feed(d) {
    const t = performance.timeOrigin + performance.now();
    this.buf += d;
    let i;
    let start = 0;
    while ((i = this.buf.indexOf('\n\n', start)) >= 0) {
      this.block(this.buf.slice(start, i), t);
      start = i + 2;
    }
    this.buf = this.buf.slice(start);
    for (const w of this.waiters) w.check();
  }

  block(b, t) {
    let id;
    let event;
    let data;
    for (let at = 0; at < b.length; ) {
      let nl = b.indexOf('\n', at);
      if (nl < 0) nl = b.length;
      if (b.charCodeAt(at) === 58 /* ':' */) this.comments++;
      else {
        const colon = b.indexOf(':', at);
        const hasValue = colon >= 0 && colon < nl;
        const field = b.slice(at, hasValue ? colon : nl);
        const value = hasValue ? b.slice(b.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1, nl) : '';
        if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
        else if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
      }
      at = nl + 1;
    }
    if (id !== undefined) this.lastEventId = id;
    if (data === undefined) return; // a comment or retry-only block dispatches nothing
    const f = new SseFrame(id ?? '', event ?? 'message', data);
    this.total++;
    this.counts.set(f.event, (this.counts.get(f.event) ?? 0) + 1);
    if (this.keep) this.frames.push(f);
    this.onFrame?.(f, t);
  }

  /** How many frames of this event arrived so far. */
  count(event) {
    return this.counts.get(event) ?? 0;
  }

  /** Resolves once pred(frames, this) holds; rejects when the stream ends first or after timeoutMs. */
  waitFor(pred, timeoutMs = 10_000) {
    return new Promise((resolve, reject) => {
      const w = {
        check: () => {
          if (pred(this.frames, this)) {
            settle();
            resolve();
          } else if (this.closed) {
            settle();
            reject(new Error(`SSE stream closed before the wait was met; got ${this.summary()}`));
          }
        },
      };
      const t = setTimeout(() => {
        settle();
        reject(new Error(`SSE wait timed out after ${timeoutMs} ms; got ${this.summary()}`));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(t);
        this.waiters.delete(w);
      };
      this.waiters.add(w);
      w.check();
    });
  }

  summary() {
    return this.keep ? this.frames.map((f) => f.event).join(',') || '(no frames)' : JSON.stringify(Object.fromEntries(this.counts));
  }

  /** Starts reading a reader opened with paused: true. */
  resume() {
    this.res?.resume();
  }

  /** Drops the connection the way a crashed client or a network cut would. */
  close() {
    this.req.destroy();
    this.res?.destroy();
  }
}
