// A plain SSE reader for the "watch the same session over HTTP" check: records every frame of
// GET /session/:id/events (fetch streaming; `event:`, `id:` and one `data:` JSON line a frame).

export interface Frame {
  id: string;
  event: string;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export class SseReader {
  readonly frames: Frame[] = [];
  readonly opened: Promise<number>;
  private readonly abort = new AbortController();

  /** `token`: the server's Bearer token (the extension's detached server has one). */
  constructor(url: string, token?: string) {
    this.opened = fetch(url, { headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) }, signal: this.abort.signal }).then((res) => {
      void this.read(res.body!).catch(() => undefined); // ends with kill()
      return res.status;
    });
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of body) {
      buf += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const field = (name: string) => block.split('\n').find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();
        const data = field('data');
        if (data !== undefined) this.frames.push({ id: field('id') ?? '', event: field('event') ?? 'message', data: JSON.parse(data) });
      }
    }
  }

  async waitFor(pred: (frames: Frame[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.frames)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for SSE frames; got ${this.frames.map((f) => f.event).join(', ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  kill(): void {
    this.abort.abort();
  }
}
