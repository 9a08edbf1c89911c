// The event stream of GET /session/:id/events as an async iterator: parses text/event-stream,
// reconnects with Last-Event-ID after a cut (backoff, honouring `retry:`), and never yields a
// frame id at or before the last one it yielded. Plain ESM on Node 20 (global fetch); types in sse.d.mts.
import { FerretHttpError } from './errors.mjs';

/**
 * A text/event-stream parser (the WHATWG algorithm): LF, CRLF or CR line ends, `:` comments,
 * `id`, `event`, `data` (multi-line), `retry`. push() returns the events a chunk completes.
 */
export class SseParser {
  constructor() {
    this.buf = '';
    this.data = undefined;
    this.event = '';
    /** The last `id:` seen (it carries over to later events, as the spec says). */
    this.lastId = '';
    /** The last valid `retry:` (ms), if any. */
    this.retry = undefined;
    this.comments = 0;
  }

  /** Feeds decoded text; returns the events it completed ({id, event, data}). */
  push(text) {
    const out = [];
    const b = this.buf + text;
    const eol = /[\r\n]/g;
    let start = 0;
    for (let m = eol.exec(b); m; m = eol.exec(b)) {
      const i = m.index;
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (b.charCodeAt(i) === 13 && i + 1 === b.length) break;
      this.line(b.slice(start, i), out);
      start = b.charCodeAt(i) === 13 && b.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
      eol.lastIndex = start;
    }
    this.buf = b.slice(start);
    return out;
  }

  /** The stream ended: a trailing CR ends its line; an event without its blank line is dropped. */
  end() {
    const out = [];
    if (this.buf.endsWith('\r')) this.line(this.buf.slice(0, -1), out);
    this.buf = '';
    this.data = undefined;
    this.event = '';
    return out;
  }

  line(l, out) {
    if (l === '') {
      if (this.data !== undefined) out.push({ id: this.lastId, event: this.event || 'message', data: this.data });
      this.data = undefined;
      this.event = '';
      return;
    }
    if (l.charCodeAt(0) === 58 /* ':' */) {
      this.comments++;
      return;
    }
    const colon = l.indexOf(':');
    const field = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    else if (field === 'event') this.event = value;
    else if (field === 'id') {
      if (!value.includes('\0')) this.lastId = value;
    } else if (field === 'retry') {
      if (/^\d+$/.test(value)) this.retry = Number(value);
    }
  }
}

/** A ferret frame id (`SEQ` or `SEQ.K`) as [seq, k]; undefined for anything else. */
export function parseFrameId(id) {
  const m = /^(\d{1,15})(?:\.(\d{1,6}))?$/.exec(id);
  return m ? [Number(m[1]), m[2] === undefined ? 0 : Number(m[2])] : undefined;
}

/** Numeric order of two parsed frame ids: <0, 0, >0. */
export function compareFrameIds(a, b) {
  return a[0] - b[0] || a[1] - b[1];
}

const RETRIABLE = new Set([408, 425, 429, 500, 502, 503, 504]);
const closedError = () => Object.assign(new Error('the event stream was closed'), { name: 'AbortError' });

/**
 * The frames of one session's event stream. The first connection is made at once (await
 * `opened` before sending a message, so nothing after it is missed); iterate it once with
 * `for await`. After a cut it reconnects with Last-Event-ID (the last id it yielded), waiting
 * the server's `retry:` (or `retryMs`) and doubling the wait after each failed attempt up to
 * `maxRetryMs`; it throws after `maxRetries` failed attempts in a row, or at once on a 4xx
 * (a FerretHttpError). A connection that sends nothing (not even a heartbeat) for
 * `idleTimeoutMs` counts as cut. `close()`, an aborted `signal` or `break` ends it quietly.
 */
export class FerretEventStream {
  #url;
  #headers;
  #fetch;
  #opts;
  #conn; // the AbortController of the current connection
  #wake; // the AbortController of the current backoff sleep
  #closed = false;
  #started = false;
  #first;
  #floor;
  #lastEventId;
  #serverRetry;
  #reconnects = 0;
  #comments = 0;
  #resolveOpened;
  #rejectOpened;

  constructor(url, { headers = {}, fetch = globalThis.fetch, lastEventId, signal, retryMs = 1000, maxRetryMs = 30_000, maxRetries = 10, idleTimeoutMs = 45_000, reconnect = true } = {}) {
    this.#url = url;
    this.#headers = headers;
    this.#fetch = fetch;
    this.#opts = { retryMs, maxRetryMs, maxRetries, idleTimeoutMs, reconnect };
    this.#lastEventId = lastEventId === undefined || lastEventId === '' ? undefined : String(lastEventId);
    this.#floor = this.#lastEventId === undefined ? undefined : parseFrameId(this.#lastEventId);
    /** Resolves once the first connection answered 200 (the stream is live); rejects if it never does. */
    this.opened = new Promise((resolve, reject) => {
      this.#resolveOpened = resolve;
      this.#rejectOpened = reject;
    });
    this.opened.catch(() => {}); // awaiting it is optional
    if (signal?.aborted) this.close();
    else {
      signal?.addEventListener('abort', () => this.close(), { once: true });
      this.#first = this.#open(0);
      this.#first.catch((e) => this.#rejectOpened(e));
    }
  }

  /** The id of the last frame yielded (or the lastEventId it started from): what a reconnect sends. */
  get lastEventId() {
    return this.#lastEventId;
  }

  /** How many times it reconnected after a cut. */
  get reconnects() {
    return this.#reconnects;
  }

  /** Comment lines (the server's `: heartbeat`s) seen on every connection so far. */
  get comments() {
    return this.#comments;
  }

  /** The wait before a reconnect: the server's last `retry:`, else the retryMs option. */
  get retryMs() {
    return this.#serverRetry ?? this.#opts.retryMs;
  }

  get closed() {
    return this.#closed;
  }

  /** Ends the stream: the connection is dropped and the iteration ends (no error). */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#conn?.abort();
    this.#wake?.abort();
    this.#rejectOpened(closedError());
  }

  [Symbol.asyncIterator]() {
    if (this.#started) throw new Error('a FerretEventStream can be iterated only once');
    this.#started = true;
    return this.#run();
  }

  async *#run() {
    let pending = this.#first;
    this.#first = undefined;
    try {
      while (!this.#closed) {
        let res;
        try {
          res = await (pending ?? this.#open(1));
        } catch (e) {
          if (this.#closed) return;
          throw e;
        } finally {
          pending = undefined;
        }
        let cut;
        try {
          yield* this.#frames(res);
        } catch (e) {
          if (this.#closed) return;
          if (e instanceof SseProtocolError) throw e;
          cut = e;
        }
        if (this.#closed) return;
        if (!this.#opts.reconnect) {
          if (cut) throw cut;
          return;
        }
        this.#reconnects++;
      }
    } finally {
      this.close();
    }
  }

  /** Connects, retrying with backoff; attempt 0 connects at once, attempt n > 0 first waits. */
  async #open(attempt) {
    for (;; attempt++) {
      if (attempt > 0) await this.#sleep(this.#delay(attempt));
      if (this.#closed) throw closedError();
      try {
        const res = await this.#connect();
        this.#resolveOpened();
        return res;
      } catch (e) {
        if (this.#closed) throw closedError();
        const retriable = e instanceof FerretHttpError ? RETRIABLE.has(e.status) : !(e instanceof SseProtocolError);
        if (!retriable || !this.#opts.reconnect || attempt >= this.#opts.maxRetries) throw e;
      }
    }
  }

  #delay(attempt) {
    const base = this.retryMs;
    const capped = Math.min(Math.max(this.#opts.maxRetryMs, base), base * 2 ** (attempt - 1));
    return Math.round(capped * (1 + Math.random() * 0.2)); // jitter upward only: `retry:` is a minimum
  }

  #sleep(ms) {
    const wake = new AbortController();
    this.#wake = wake;
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      wake.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }

  async #connect() {
    const conn = new AbortController();
    this.#conn = conn;
    const headers = { accept: 'text/event-stream', 'cache-control': 'no-cache', ...this.#headers };
    if (this.#lastEventId !== undefined) headers['last-event-id'] = this.#lastEventId;
    const res = await this.#fetch(this.#url, { headers, signal: conn.signal });
    if (res.status !== 200) {
      const text = await res.text().catch(() => '');
      throw FerretHttpError.fromBody(res.status, text, 'GET', new URL(this.#url).pathname);
    }
    const type = res.headers.get('content-type') ?? '';
    if (!/^text\/event-stream\b/i.test(type) || !res.body) {
      conn.abort();
      throw new SseProtocolError(`GET ${this.#url}: answered 200 with content-type "${type}", not text/event-stream`);
    }
    return res;
  }

  /** The frames of one connection, deduplicated against what was already yielded. */
  async *#frames(res) {
    const conn = this.#conn;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const idle = this.#opts.idleTimeoutMs;
    let timer;
    const arm = () => {
      clearTimeout(timer);
      if (idle > 0) timer = setTimeout(() => conn?.abort(new Error(`no bytes for ${idle} ms`)), idle);
    };
    try {
      for (;;) {
        arm();
        const { value, done } = await reader.read();
        const events = done ? [...parser.push(decoder.decode()), ...parser.end()] : parser.push(decoder.decode(value, { stream: true }));
        if (parser.retry !== undefined) this.#serverRetry = parser.retry;
        this.#comments += parser.comments;
        parser.comments = 0;
        for (const e of events) {
          const pos = parseFrameId(e.id);
          if (pos && this.#floor && compareFrameIds(pos, this.#floor) <= 0) continue;
          let data;
          try {
            data = JSON.parse(e.data);
          } catch {
            throw new SseProtocolError(`frame ${e.id || '(no id)'} (${e.event}): data is not JSON`);
          }
          if (pos) {
            this.#floor = pos;
            this.#lastEventId = e.id;
          }
          clearTimeout(timer); // the consumer may take its time with a frame
          yield { id: e.id, event: e.event, data };
          arm();
        }
        if (done) return;
      }
    } finally {
      clearTimeout(timer);
      conn?.abort();
      reader.cancel().catch(() => {});
    }
  }
}

/** The server sent something that is not ferret's event stream (wrong content type, non-JSON data). */
export class SseProtocolError extends Error {
  constructor(message) {
    super(message);
    this.name = 'SseProtocolError';
  }
}
