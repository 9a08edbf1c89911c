import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeContextWindow } from './window-probe.js';

// Each kind of local server, as a real HTTP server on loopback answering its own endpoint.

let server: Server | undefined;
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function serve(routes: Record<string, unknown>): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    const body = routes[`${req.method} ${req.url}`];
    if (body === undefined) res.writeHead(404).end('{}');
    else res.writeHead(200, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

describe('probeContextWindow', () => {
  it('llama.cpp: /props default_generation_settings.n_ctx', async () => {
    const { url } = await serve({ 'GET /props': { default_generation_settings: { n_ctx: 4096 }, total_slots: 1 } });
    expect(await probeContextWindow(`${url}/v1`, 'qwen')).toBe(4096);
  });

  it('Ollama: a num_ctx the model runs with wins over the model\'s own length', async () => {
    const { url } = await serve({ 'POST /api/show': { parameters: 'stop "<|im_end|>"\nnum_ctx 16384', model_info: { 'qwen2.context_length': 32768 } } });
    expect(await probeContextWindow(`${url}/v1`, 'qwen2.5-coder')).toBe(16384);
    const other = await serve({ 'POST /api/show': { parameters: 'stop "x"', model_info: { 'llama.context_length': 131072 } } });
    expect(await probeContextWindow(`${other.url}/v1`, 'llama3.1')).toBe(131072);
  });

  it('vLLM: max_model_len of the model in /v1/models', async () => {
    const { url } = await serve({ 'GET /v1/models': { object: 'list', data: [{ id: 'other', max_model_len: 1 }, { id: 'Qwen/Qwen3-8B', max_model_len: 40960 }] } });
    expect(await probeContextWindow(`${url}/v1`, 'Qwen/Qwen3-8B')).toBe(40960);
  });

  it('LM Studio: loaded_context_length', async () => {
    const { url } = await serve({ 'GET /api/v0/models/phi-4': { id: 'phi-4', loaded_context_length: 8192, max_context_length: 16384 } });
    expect(await probeContextWindow(`${url}/v1`, 'phi-4')).toBe(8192);
  });

  it('a server with none of them, or a malformed answer: unknown, and not asked again', async () => {
    const none = await serve({});
    expect(await probeContextWindow(`${none.url}/v1`, 'm')).toBeUndefined();
    const before = none.asked.length;
    expect(await probeContextWindow(`${none.url}/v1`, 'm')).toBeUndefined();
    expect(none.asked.length).toBe(before);
    const bad = await serve({ 'GET /props': 'not json{', 'GET /v1/models': { data: 'nope' } });
    expect(await probeContextWindow(`${bad.url}/v1`, 'm')).toBeUndefined();
  });

  it('a server that does not answer: unknown within the deadline', async () => {
    server = createServer(() => {}); // never answers
    servers.push(server);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const started = Date.now();
    expect(await probeContextWindow(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, 'm')).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
