import type { Channel } from './channel.js';

/** A pair of web streams of JSON-RPC message objects, as the ACP SDK's HTTP server hands an agent. */
export interface MessageStream {
  readable: ReadableStream<unknown>;
  writable: WritableStream<unknown>;
}

/**
 * A channel over an ACP SDK stream (streamable HTTP): messages arrive as objects and are handed
 * on as text, so the connection classifies every transport's input the same way.
 */
export class MessageStreamChannel implements Channel {
  private readonly writer: WritableStreamDefaultWriter<unknown>;
  private pending: Promise<void> = Promise.resolve();

  constructor(private readonly stream: MessageStream) {
    this.writer = stream.writable.getWriter();
  }

  onLine(handler: (line: string | null) => void, onClose: () => void): void {
    const reader = this.stream.readable.getReader();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          handler(JSON.stringify(value));
        }
      } catch {
        // the HTTP connection went away: the same as stdin closing
      } finally {
        onClose();
      }
    })();
  }

  send(message: unknown): void {
    // The writer keeps order; a closed connection just drops what is still sent to it.
    this.pending = this.writer.write(message).catch(() => undefined);
  }

  drain(): Promise<void> {
    return this.pending;
  }
}
