// A session's event stream in the page: the typed client's FerretEventStream (fetch-based, so
// the request can say Last-Event-ID: 0 for a full replay and the login cookie goes along), which
// reconnects by itself after a cut with the last id it delivered: nothing lost, nothing twice.
// Its fetch is wrapped to tell the page when the connection is up or down.
import { FerretEventStream, type SseFrame } from '../../clients/typescript/src/sse.mjs';

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'failed';

export interface StreamHandle {
  close(): void;
}

export function openEventStream(
  sessionId: string,
  onFrame: (f: SseFrame) => void,
  onConnection: (c: Connection, error?: unknown) => void,
): StreamHandle {
  let closed = false;
  let everLive = false;
  const state = (c: Connection, e?: unknown) => {
    if (!closed) onConnection(c, e);
  };
  const watchedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    state(everLive ? 'reconnecting' : 'connecting');
    const res = await fetch(input, { ...init, credentials: 'same-origin', cache: 'no-store' });
    if (res.status !== 200 || !res.body) return res;
    everLive = true;
    state('live');
    const reader = res.body.getReader();
    // The same bytes, with the end of the connection (clean or not) reported.
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { value, done } = await reader.read();
          if (done) {
            state('reconnecting');
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          state('reconnecting');
          controller.error(e);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const stream = new FerretEventStream(`${location.origin}/session/${encodeURIComponent(sessionId)}/events`, {
    fetch: watchedFetch,
    lastEventId: '0', // the whole session, then live
    retryMs: 500,
    maxRetryMs: 5000,
    maxRetries: Number.MAX_SAFE_INTEGER,
    idleTimeoutMs: 40_000, // the server sends a heartbeat every 15 s
  });
  void (async () => {
    try {
      for await (const frame of stream) onFrame(frame);
    } catch (e) {
      state('failed', e);
    }
  })();
  return {
    close() {
      closed = true;
      stream.close();
    },
  };
}
