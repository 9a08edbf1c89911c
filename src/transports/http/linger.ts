// A refused body is read to its end before the connection closes ("lingering close", as nginx
// does): Fastify answers 413 from the Content-Length, or as soon as the limit is passed, and closes
// at once; a client still sending the rest then gets a reset (EPIPE/ECONNRESET) and never reads
// the 413. Here the rest is read and dropped (Node discards an unread body once the answer is
// sent) for at most LINGER_MS, so an honest client reads the answer and an endless body is cut.
import type { FastifyInstance } from 'fastify';

const LINGER_MS = 5_000;

export function lingerOnRefusedBodies(app: FastifyInstance, lingerMs = LINGER_MS): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode !== 413 || req.raw.complete) return payload;
    reply.removeHeader('connection'); // Fastify's 'close' would drop the socket as soon as the answer is written
    const socket = req.raw.socket;
    const cut = setTimeout(() => socket.destroy(), lingerMs);
    cut.unref();
    req.raw.once('end', () => clearTimeout(cut));
    req.raw.resume(); // flowing with no reader: the rest is dropped as it arrives
    socket.once('close', () => clearTimeout(cut));
    return payload;
  });
}
