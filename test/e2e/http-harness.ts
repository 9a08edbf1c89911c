import { request as httpRequest, type IncomingMessage } from 'node:http';
import { AcpProcess, type Json } from './harness.js';

/** Spawns `chimera ferret serve --http --port 0 ...` (stdio stays open) and learns its URL from the listening log line. */
export async function startHttp(args: string[], env: NodeJS.ProcessEnv): Promise<{ proc: AcpProcess; url: string }> {
  const proc = new AcpProcess(['--http', '--port', '0', ...args], { FERRET_LOG_LEVEL: 'info', ...env });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    for (const line of proc.stderr.split('\n')) {
      if (!line.includes('"msg":"listening"')) continue;
      return { proc, url: (JSON.parse(line) as Json)['url'] as string };
    }
    if (proc.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  proc.child.kill('SIGKILL');
  throw new Error(`server did not report listening; stderr:\n${proc.stderr}`);
}

/** SIGTERM, then the exit code (SIGKILL after 5 s so a hung server fails the test instead of hanging it). */
export async function stopHttp(proc: AcpProcess): Promise<number | null> {
  if (proc.child.exitCode !== null) return proc.child.exitCode;
  proc.child.kill('SIGTERM');
  const t = setTimeout(() => proc.child.kill('SIGKILL'), 5000);
  const code = await proc.exited;
  clearTimeout(t);
  return code;
}

/** A tiny JSON client: status and parsed body of one request. */
export async function api(url: string, method: string, path: string, body?: unknown, token?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(url + path, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: Json = {};
  try {
    parsed = text ? (JSON.parse(text) as Json) : {};
  } catch {
    parsed = { raw: text };
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export interface SseFrame {
  id: string;
  event: string;
  data: Json;
}

/** An SSE reader on a raw socket: records frames, can pause (stop reading) and be killed mid-stream. */
export class SseClient {
  readonly frames: SseFrame[] = [];
  comments = 0;
  res: IncomingMessage | undefined;
  readonly opened: Promise<number>;
  readonly ended: Promise<void>;
  private buf = '';
  private waiters: { pred: () => boolean; resolve: () => void }[] = [];
  private req;

  constructor(url: string, path: string, opts: { token?: string; lastEventId?: string; paused?: boolean } = {}) {
    let endResolve: () => void = () => {};
    this.ended = new Promise((r) => (endResolve = r));
    this.req = httpRequest(url + path, {
      headers: {
        accept: 'text/event-stream',
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
      },
      agent: false,
    });
    this.opened = new Promise((resolve, reject) => {
      this.req.on('response', (res) => {
        this.res = res;
        res.setEncoding('utf8');
        if (opts.paused) res.pause();
        res.on('data', (d: string) => this.feed(d));
        res.on('end', endResolve);
        res.on('close', endResolve);
        res.on('error', endResolve);
        resolve(res.statusCode ?? 0);
      });
      this.req.on('error', (e) => (this.res ? endResolve() : reject(e)));
    });
    this.req.end();
  }

  private feed(d: string): void {
    this.buf += d;
    let i: number;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const block = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      const f: Partial<SseFrame> & { dataLines?: string[] } = {};
      const dataLines: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments++;
        else if (line.startsWith('id: ')) f.id = line.slice(4);
        else if (line.startsWith('event: ')) f.event = line.slice(7);
        else if (line.startsWith('data: ')) dataLines.push(line.slice(6));
      }
      if (f.event) this.frames.push({ id: f.id ?? '', event: f.event, data: JSON.parse(dataLines.join('\n')) as Json });
    }
    this.waiters = this.waiters.filter((w) => (w.pred() ? (w.resolve(), false) : true));
  }

  waitFor(pred: (frames: SseFrame[]) => boolean, timeoutMs = 10_000): Promise<void> {
    if (pred(this.frames)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`SSE wait timed out; got ${this.frames.map((f) => f.event).join(',')}`)), timeoutMs);
      this.waiters.push({ pred: () => pred(this.frames), resolve: () => (clearTimeout(t), resolve()) });
    });
  }

  resume(): void {
    this.res?.resume();
  }

  /** Drops the connection the way a crashed client or a network cut would. */
  kill(): void {
    this.req.destroy();
    this.res?.destroy();
  }
}
