/** What an ACP connection reads and writes: stdio lines, or an HTTP stream's messages. */
export interface Channel {
  /** Each inbound JSON-RPC message as text (`null`: one too long to read), then `onClose` once. */
  onLine(handler: (line: string | null) => void, onClose: () => void): void;
  /** Queues one outbound message; order is kept. */
  send(message: unknown): void;
  /** Resolves once what was sent has been handed on. */
  drain(): Promise<void>;
  /** Sends one message in a write of its own, a gap after the ones before it (order kept); channels of one ordered stream need not. */
  sendApart?(message: unknown, gapMs: number): void;
  /** Bytes sent but not yet handed to the OS (0 when the channel cannot tell). */
  backlog?(): number;
}
