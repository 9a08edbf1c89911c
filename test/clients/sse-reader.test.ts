import { describe, expect, it } from 'vitest';
import { FerretEventStream, FerretHttpError, SseParser, SseProtocolError, compareFrameIds, createFerretClient, parseFrameId, type SseFrame } from '../../clients/typescript/src/index.mjs';

// The typed client's SSE reader against a scripted fetch: parsing, resume, dedupe, backoff.

interface Conn {
  /** Chunks to send, then how the body ends: 'end' (server closed), 'cut' (network error), 'hang' (stays open). */
  chunks: string[];
  finish?: 'end' | 'cut' | 'hang';
  status?: number;
  contentType?: string;
  body?: string;
}

/** A fetch that answers each call with the next scripted connection and records its headers and time. */
function scriptedFetch(conns: Conn[]) {
  const calls: { headers: Record<string, string>; at: number }[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    calls.push({ headers, at: Date.now() });
    const c = conns.shift();
    if (!c) throw new TypeError(`fetch failed: no more scripted connections (${typeof input === 'string' ? input : input instanceof URL ? input.href : input.url})`);
    if (c.status && c.status !== 200) return new Response(c.body ?? '', { status: c.status, headers: { 'content-type': 'application/json' } });
    const enc = new TextEncoder();
    const signal = init?.signal;
    let next = 0;
    // Pulled one chunk a read, so a cut comes after the chunks before it were read (as on a socket).
    const body = new ReadableStream<Uint8Array>(
      {
        start(ctrl) {
          signal?.addEventListener('abort', () => {
            try {
              ctrl.error(signal.reason);
            } catch {
              /* already closed */
            }
          });
        },
        pull(ctrl) {
          if (next < c.chunks.length) return ctrl.enqueue(enc.encode(c.chunks[next++]));
          const finish = c.finish ?? 'end';
          if (finish === 'end') return ctrl.close();
          if (finish === 'cut') return ctrl.error(new TypeError('terminated'));
          return new Promise<void>(() => {}); // hang until aborted
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: 200, headers: { 'content-type': c.contentType ?? 'text/event-stream' } });
  };
  return { fetch, calls };
}

const frame = (id: string, data: unknown, event = 'loop_event') => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const upd = (seq: number) => ({ sessionId: 's', seq, kind: 'agent_message_chunk', text: `t${seq}` });

async function collect(stream: AsyncIterable<SseFrame>, max = 1000): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  for await (const f of stream) {
    out.push(f);
    if (out.length >= max) break;
  }
  return out;
}

describe('SseParser', () => {
  it('parses LF, CRLF and CR line ends split anywhere, comments, multi-line data, retry and a carried-over id', () => {
    const text = ': ferret events\r\n\r\nid: 1\r\nevent: a\r\ndata: {"x":\r\ndata: 1}\r\n\r\nretry: 250\rdata:no-space\r\rid: 2.1\nevent: b\ndata: {}\n\nretry: nope\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const p = new SseParser();
      const evs = [...p.push(text.slice(0, cut)), ...p.push(text.slice(cut)), ...p.end()];
      expect(evs, `split at ${cut}`).toEqual([
        { id: '1', event: 'a', data: '{"x":\n1}' },
        { id: '1', event: 'message', data: 'no-space' },
        { id: '2.1', event: 'b', data: '{}' },
      ]);
      expect(p.retry).toBe(250);
      expect(p.comments).toBe(1);
    }
  });

  it('drops a half event at the end and ignores an id with a NUL', () => {
    const p = new SseParser();
    expect(p.push('id: 5\ndata: 1\n\nid: 6\0\ndata: 2\n\ndata: half')).toEqual([
      { id: '5', event: 'message', data: '1' },
      { id: '5', event: 'message', data: '2' },
    ]);
    expect(p.end()).toEqual([]);
  });

  it('orders frame ids numerically: 9 < 9.2 < 9.10 < 10', () => {
    const ids = ['10', '9.10', '9', '9.2', '100', '11.1'];
    const sorted = [...ids].sort((a, b) => compareFrameIds(parseFrameId(a)!, parseFrameId(b)!));
    expect(sorted).toEqual(['9', '9.2', '9.10', '10', '11.1', '100']);
    expect(parseFrameId('x')).toBeUndefined();
    expect(parseFrameId('1.2.3')).toBeUndefined();
  });
});

describe('FerretEventStream', () => {
  it('sends the token and Accept, yields typed frames, and after a cut resumes with Last-Event-ID without repeating a frame', async () => {
    const { fetch, calls } = scriptedFetch([
      { chunks: [': hi\n\n', frame('1', upd(1)), frame('2', upd(2)), frame('2.1', { sessionUpdate: 'progress/step' }, 'progress/step')], finish: 'cut' },
      // The server (or a proxy) replays from further back: the reader skips what it already yielded.
      { chunks: [frame('1', upd(1)), frame('2', upd(2)), frame('2.1', { sessionUpdate: 'progress/step' }, 'progress/step'), frame('3', upd(3)), frame('10', upd(10))], finish: 'end' },
      { chunks: [frame('9.5', upd(9)), frame('10', upd(10)), frame('10.1', { turnId: 't' }, 'result')], finish: 'hang' },
    ]);
    const client = createFerretClient({ baseUrl: 'http://ferret.test/', token: 'tok', fetch });
    const stream = client.events('sid', { retryMs: 10 });
    await stream.opened;
    const got = await collect(stream, 6);
    expect(got.map((f) => `${f.id}:${f.event}`)).toEqual(['1:loop_event', '2:loop_event', '2.1:progress/step', '3:loop_event', '10:loop_event', '10.1:result']);
    const first = got[0]!;
    if (first.event === 'loop_event' && first.data.kind === 'agent_message_chunk') expect(first.data.text).toBe('t1');
    else expect.unreachable('the first frame is a loop_event chunk');
    expect(calls.map((c) => c.headers['last-event-id'])).toEqual([undefined, '2.1', '10']);
    for (const c of calls) expect(c.headers).toMatchObject({ authorization: 'Bearer tok', accept: 'text/event-stream' });
    expect(stream.reconnects).toBe(2);
    expect(stream.lastEventId).toBe('10.1');
    expect(stream.closed).toBe(true); // break closed it
  });

  it('starts after lastEventId and never yields an id at or before it', async () => {
    const { fetch, calls } = scriptedFetch([{ chunks: [frame('4', upd(4)), frame('5', upd(5)), frame('5.1', upd(5)), frame('6', upd(6))], finish: 'hang' }]);
    const stream = new FerretEventStream('http://x/session/s/events', { fetch, lastEventId: '5' });
    const got = await collect(stream, 2);
    expect(got.map((f) => f.id)).toEqual(['5.1', '6']);
    expect(calls[0]!.headers['last-event-id']).toBe('5');
  });

  it('honours retry: and backs off (doubling) across failed reconnects', async () => {
    const { fetch, calls } = scriptedFetch([
      { chunks: ['retry: 120\n\n', frame('1', upd(1))], finish: 'cut' },
      { chunks: [], status: 503, body: '{"error":{"code":"internal","message":"busy"}}' },
      { chunks: [frame('2', upd(2))], finish: 'hang' },
    ]);
    const stream = new FerretEventStream('http://x/e', { fetch, retryMs: 5, maxRetryMs: 10_000 });
    const got = await collect(stream, 2);
    expect(got.map((f) => f.id)).toEqual(['1', '2']);
    expect(stream.retryMs).toBe(120);
    const gap1 = calls[1]!.at - calls[0]!.at;
    const gap2 = calls[2]!.at - calls[1]!.at;
    expect(gap1).toBeGreaterThanOrEqual(115); // the server's retry, not the 5 ms default
    expect(gap2).toBeGreaterThanOrEqual(235); // doubled after the 503
  });

  it('throws a typed FerretHttpError at once on a 4xx, and after maxRetries failed attempts', async () => {
    const notFound = scriptedFetch([{ chunks: [], status: 404, body: '{"error":{"code":"session_not_found","message":"no session x"}}' }]);
    const s1 = new FerretEventStream('http://x/session/x/events', { fetch: notFound.fetch });
    const e1 = await collect(s1).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(FerretHttpError);
    expect(e1).toMatchObject({ status: 404, code: 'session_not_found', path: '/session/x/events' });
    await expect(s1.opened).rejects.toBeInstanceOf(FerretHttpError);

    const down = scriptedFetch([]); // every fetch fails like a refused connection
    const s2 = new FerretEventStream('http://x/e', { fetch: down.fetch, retryMs: 1, maxRetries: 3 });
    await expect(collect(s2)).rejects.toThrow(/fetch failed/);
    expect(down.calls.length).toBe(4);

    const html = scriptedFetch([{ chunks: ['<html>'], contentType: 'text/html' }]);
    await expect(collect(new FerretEventStream('http://x/e', { fetch: html.fetch }))).rejects.toBeInstanceOf(SseProtocolError);
  });

  it('treats a silent connection as cut (idleTimeoutMs), and close() ends a waiting iteration quietly', async () => {
    const { fetch, calls } = scriptedFetch([
      { chunks: [frame('1', upd(1))], finish: 'hang' },
      { chunks: [frame('2', upd(2))], finish: 'hang' },
    ]);
    const stream = new FerretEventStream('http://x/e', { fetch, retryMs: 1, idleTimeoutMs: 80 });
    const got: string[] = [];
    const done = (async () => {
      for await (const f of stream) {
        got.push(f.id);
        if (got.length === 2) setTimeout(() => stream.close(), 20);
      }
    })();
    await done;
    expect(got).toEqual(['1', '2']);
    expect(calls.map((c) => c.headers['last-event-id'])).toEqual([undefined, '1']);
    expect(stream.closed).toBe(true);
  });

  it('reconnect: false ends with the connection; a second iteration is refused', async () => {
    const { fetch } = scriptedFetch([{ chunks: [frame('1', upd(1))], finish: 'end' }]);
    const stream = new FerretEventStream('http://x/e', { fetch, reconnect: false });
    expect((await collect(stream)).map((f) => f.id)).toEqual(['1']);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });
});
