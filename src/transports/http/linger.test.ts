import { connect, type AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lingerOnRefusedBodies } from './linger.js';

/** Sends `head`, then `body` in 64 KiB pieces (all of it before reading, as most clients do); resolves with what came back and whether the socket was reset. */
function send(port: number, head: string, body: Buffer, keepWriting = false): Promise<{ text: string; reset: boolean; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const sock = connect(port, '127.0.0.1');
    let text = '';
    let reset = false;
    let timer: NodeJS.Timeout | undefined;
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (text += d));
    sock.on('error', () => (reset = true));
    sock.on('close', () => (clearInterval(timer), resolve({ text, reset, closedAfterMs: Date.now() - started })));
    sock.write(head);
    for (let i = 0; i < body.length; i += 64 * 1024) sock.write(body.subarray(i, i + 64 * 1024));
    if (keepWriting) timer = setInterval(() => sock.writable && sock.write('x'.repeat(1024)), 20);
  });
}

describe('a refused body is read to its end before the connection closes', () => {
  const app = Fastify({ bodyLimit: 1024 });
  lingerOnRefusedBodies(app, 400);
  app.post('/x', async () => ({ ok: true }));
  let port = 0;
  beforeAll(async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  it('a client that writes a too-large body before reading gets the 413, never a reset, and the connection stays usable', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 'a');
    const next = 'POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}';
    const r = await send(port, `POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, Buffer.concat([body, Buffer.from(next)]));
    expect(r.reset).toBe(false);
    expect(r.text).toMatch(/^HTTP\/1\.1 413/);
    // the same connection then answers the next request
    expect(r.text).toContain('{"ok":true}');
  });

  it('a body that never ends is cut after the linger time', async () => {
    const r = await send(port, `POST /x HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${1 << 30}\r\n\r\n`, Buffer.alloc(0), true);
    expect(r.text).toMatch(/^HTTP\/1\.1 413/);
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(350);
    expect(r.closedAfterMs).toBeLessThan(5000);
  });
});
