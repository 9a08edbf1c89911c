import type { IncomingMessage, ServerResponse } from 'node:http';
import { AcpConnection, type AcpServerOptions } from './connection.js';
import { MessageStreamChannel, type MessageStream } from './message-stream-channel.js';

/** ACP over streamable HTTP, as a plain Node handler the HTTP transport mounts at `/acp`. */
export interface AcpHttpHandler {
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

/**
 * Official ACP v1 over the SDK's streamable-HTTP draft (POST messages, SSE streams per connection
 * and per session, `Acp-Connection-Id` / `Acp-Session-Id` headers). The SDK's own server does the
 * framing and routing; each accepted connection is an ordinary ACP connection on the same core,
 * so a remote client shares live sessions with the editor on stdio and the SSE readers.
 */
export async function createAcpHttpHandler(opts: AcpServerOptions): Promise<AcpHttpHandler> {
  // Loaded only with --http: the editor's stdio path never pays for it.
  const [{ AcpServer }, { createNodeHttpHandler }] = await Promise.all([
    import('@agentclientprotocol/sdk/experimental/server'),
    import('@agentclientprotocol/sdk/experimental/node'),
  ]);
  const server = new AcpServer({
    createAgent: () => ({
      connect: (stream: MessageStream) => {
        const conn = new AcpConnection(new MessageStreamChannel(stream), opts);
        return { closed: conn.run() };
      },
    }),
  });
  const handle = createNodeHttpHandler(server);
  return { handle: (req, res) => handle(req, res), close: () => server.close() };
}
