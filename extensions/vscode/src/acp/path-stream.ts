import type * as acp from '@agentclientprotocol/sdk';

// ACP over HTTP in ferret's path-scoped profile (docs/ide.md, "/acp/{name}"): each message this
// side sends is one POST to /acp/{name}; what the server sends arrives on one SSE stream from
// GET /acp/{name}, resumed with Last-Event-ID when it drops. The window's server outlives the
// window, so the connection is HTTP rather than the child's stdio (README, "Reloads").

type Message = acp.AnyMessage;
type Obj = Record<string, unknown>;

export interface PathStreamOptions {
  /** http://127.0.0.1:PORT */
  base: string;
  token: string;
  /** This connection's name (the path segment): random per window. */
  name: string;
  log: (line: string) => void;
  /** Every message the server sent, before the SDK sees it (held writes are recorded from here). */
  onIncoming?: (m: Obj) => void;
  /** Every message this side sent (answers to held writes are recorded from here). */
  onOutgoing?: (m: Obj) => void;
}

export interface PathStream {
  stream: acp.Stream;
  /** Stops reading and sending here (the server keeps the connection until it expires or is deleted). */
  close(): void;
  /** Settles when the stream can no longer reach the server (it went away), or close() was called. */
  readonly ended: Promise<void>;
}

/** POSTs one JSON-RPC message on `/acp/{name}` (also used to answer an earlier connection's held request). */
export async function postMessage(base: string, token: string, name: string, message: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${base}/acp/${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
}

export function pathStream(o: PathStreamOptions): PathStream {
  const stop = new AbortController();
  let deliver: ReadableStreamDefaultController<Message> | undefined;
  let endedResolve: () => void = () => undefined;
  const ended = new Promise<void>((r) => (endedResolve = r));
  let finished = false;
  const finish = (why: string) => {
    if (finished) return;
    finished = true;
    o.log(`ACP connection ${o.name} ended: ${why}`);
    stop.abort();
    try {
      deliver?.close();
    } catch {
      // already closed
    }
    endedResolve();
  };
  const receive = (m: Obj) => {
    if (finished) return;
    o.onIncoming?.(m);
    deliver?.enqueue(m as Message);
  };

  let reading = false;
  let lastEventId: string | undefined;
  const read = async () => {
    let failures = 0;
    while (!finished) {
      try {
        const res = await fetch(`${o.base}/acp/${encodeURIComponent(o.name)}`, {
          headers: { authorization: `Bearer ${o.token}`, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
          signal: stop.signal,
        });
        // 404: the server forgot the connection (it restarted, or expired it): nothing to resume.
        if (res.status === 404 || res.status === 401) return finish(`the server answered ${res.status} to the stream`);
        if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
        failures = 0;
        await readEvents(res.body, (id, data) => {
          if (id !== undefined) lastEventId = id;
          try {
            receive(JSON.parse(data) as Obj);
          } catch {
            o.log(`ignored a stream message that is not JSON: ${data.slice(0, 200)}`);
          }
        });
      } catch (err) {
        if (finished) return;
        o.log(`ACP stream dropped (${err instanceof Error ? err.message : String(err)}); resuming`);
      }
      // A server that is gone refuses at once: after a few tries in a row, say the connection ended.
      if (++failures > 5) return finish('the server cannot be reached');
      await new Promise((r) => setTimeout(r, 200 * failures));
    }
  };

  const readable = new ReadableStream<Message>({
    start: (c) => {
      deliver = c;
    },
    cancel: () => finish('closed'),
  });
  // A request's POST stays open until its answer was sent (session/prompt: the whole turn), so
  // messages are not queued behind one another: each goes at once.
  const send = async (m: Message): Promise<void> => {
    {
      let res: Response;
      let text: string;
      try {
        res = await postMessage(o.base, o.token, o.name, m, stop.signal);
        text = await res.text();
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        // Before the stream is read, nothing else would notice; after, a request's answer still
        // comes on the stream (fetch gives up on a POST held open by a long turn after 5 minutes).
        if (!reading && !finished) finish(`a message could not be sent: ${why}`);
        else if (!finished) o.log(`POST /acp/${o.name} ended early (${why}); its answer comes on the stream`);
        return;
      }
      // With no stream open yet the answer is the POST's body (the first one, initialize, always is).
      if (!reading) {
        reading = true;
        void read();
      }
      if (res.ok && text.trim() !== '') {
        try {
          receive(JSON.parse(text) as Obj);
        } catch {
          o.log(`ignored an answer that is not JSON: ${text.slice(0, 200)}`);
        }
      } else if (!res.ok) {
        const id = (m as { id?: unknown }).id;
        o.log(`POST /acp/${o.name} answered ${res.status}: ${text.slice(0, 300)}`);
        // A refused request is answered here, so its caller hears why instead of waiting forever.
        if ('method' in m && (typeof id === 'string' || typeof id === 'number')) receive({ jsonrpc: '2.0', id, error: { code: -32603, message: `the server answered HTTP ${res.status}: ${text.slice(0, 300)}` } });
      }
    }
  };
  const writable = new WritableStream<Message>({
    write: (m) => {
      if (finished) return;
      o.onOutgoing?.(m);
      void send(m);
    },
    close: () => finish('closed'),
  });
  return { stream: { readable, writable }, close: () => finish('closed by the window'), ended };
}

/** Reads `id:` / `data:` SSE frames (ferret frames them LF-separated) until the body ends. */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (id: string | undefined, data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent(id, data.join('\n'));
    }
  }
}
