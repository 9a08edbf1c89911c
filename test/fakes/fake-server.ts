import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TITLE_SYSTEM } from '../../src/core/session/title-call.js';

/** A promise the test opens by hand: the fake waits on it between two chunks. */
export interface Gate {
  open(): void;
  readonly opened: boolean;
  readonly wait: Promise<void>;
}

export function gate(): Gate {
  let open!: () => void;
  let opened = false;
  const wait = new Promise<void>((r) => (open = r));
  return { open: () => { opened = true; open(); }, get opened() { return opened; }, wait };
}

/** One step of a streamed reply: an SSE event, a pause (on a gate or a timer), or a cut connection. */
export type Step = { event?: string; data: unknown } | { gate: Gate } | { delayMs: number } | { destroy: true };

/** What the fake answers one request with: an HTTP error, or an SSE stream (ending after the last step). */
export type Reply = { status: number; headers?: Record<string, string>; json: unknown } | { steps: Step[] };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** An image part a request carried, in whichever vendor's shape. */
export interface RecordedImage {
  /** Index of the request in `requests`. */
  request: number;
  mediaType: string;
  /** Base64 bytes. */
  data: string;
  /** Inside a tool result (Responses' function_call_output, Anthropic's tool_result), not a user message. */
  inToolResult: boolean;
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/** Every image part in a request body: OpenAI Responses `input_image`, Anthropic `image`, chat completions `image_url`. */
export function imagesIn(body: unknown, request = 0, inToolResult = false): RecordedImage[] {
  if (Array.isArray(body)) return body.flatMap((b) => imagesIn(b, request, inToolResult));
  if (body === null || typeof body !== 'object') return [];
  const o = body as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const url = o['type'] === 'input_image' ? o['image_url'] : o['type'] === 'image_url' ? o['image_url']?.url : undefined;
  const m = typeof url === 'string' ? DATA_URL.exec(url) : null;
  if (m) return [{ request, mediaType: m[1]!, data: m[2]!, inToolResult }];
  if (o['type'] === 'image' && o['source']?.type === 'base64') return [{ request, mediaType: o['source'].media_type, data: o['source'].data, inToolResult }];
  const tool = inToolResult || o['type'] === 'function_call_output' || o['type'] === 'tool_result';
  return Object.values(o).flatMap((v) => imagesIn(v, request, tool));
}
/** The first words of ferret's title call (src/core/session/title-call.ts): answered apart from the queue. */
const TITLE_MARK = TITLE_SYSTEM.slice(0, 60);

const WINDOW_PATHS = /^\/(?:props|api\/show|v1\/models|api\/v0\/models\/.*)$/;

/** An HTTP server on a loopback ephemeral port that answers queued replies in order and records every request. */
export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  /** Requests to the endpoints where local servers say their context window (answered apart from the queue). */
  readonly probes: RecordedRequest[] = [];
  /** What those endpoints answer, by path (e.g. `/props`); any other is a 404 like a server without it. */
  readonly windowInfo = new Map<string, unknown>();
  /** ferret's title calls (after a session's first turn), kept apart from `requests`. */
  readonly titleRequests: RecordedRequest[] = [];
  /** What title calls are answered with, in order; none queued: HTTP 400 (ferret keeps the first request's title). */
  readonly titleReplies: Reply[] = [];
  private readonly replies: Reply[] = [];
  /** The image parts of every recorded request, in order. */
  get images(): RecordedImage[] {
    return this.requests.flatMap((r, i) => imagesIn(r.body, i));
  }
  private server: Server | undefined;
  url = '';

  reply(...r: Reply[]): this {
    this.replies.push(...r);
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8'); // whole before decoding: a large image body spans many chunks
    const recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined };
    if (WINDOW_PATHS.test(recorded.path)) {
      this.probes.push(recorded);
      const info = this.windowInfo.get(recorded.path);
      res.writeHead(info === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(info ?? { error: 'not found' }));
      return;
    }
    const title = text.includes(TITLE_MARK);
    (title ? this.titleRequests : this.requests).push(recorded);
    const reply = title ? (this.titleReplies.shift() ?? { status: 400, json: { error: { message: 'fake: no title reply queued', type: 'invalid_request_error' } } }) : this.replies.shift();
    if (!reply) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'fake: no reply queued' } }));
      return;
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.json));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const step of reply.steps) {
      if ('gate' in step) await step.gate.wait;
      else if ('delayMs' in step) await new Promise((r) => setTimeout(r, step.delayMs));
      else if ('destroy' in step) {
        res.socket?.destroy();
        return;
      } else {
        const head = step.event ? `event: ${step.event}\n` : '';
        res.write(`${head}data: ${typeof step.data === 'string' ? step.data : JSON.stringify(step.data)}\n\n`);
      }
    }
    res.end();
  }
}
