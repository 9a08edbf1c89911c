// A fork bomb run through the built server (--http) and measured from outside: /health is asked
// every 20 ms while it runs and must answer quickly throughout. The bomb stops at its pids cgroup;
// its 1,024 processes' CPU is bounded by the commands' CPU cgroup (docs/security.md, Limits),
// which keeps the server's event loop responsive. Loads the machine for ~5 s: one test, run alone.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Json } from '../support/ferret-client.mjs';
import { ferretPerTest } from '../support/per-test.js';

// Whether the shell gets to `echo` after the bomb depends on the race with its own children at the
// limit; what counts is the limit reported and the server answering throughout.
const BOMB = ':(){ :|:& };:; sleep 4; echo survived';

describe('a fork bomb through the built server', () => {
  const { env, startHttp } = ferretPerTest();

  async function measured(command: string): Promise<{ output: string; lat: number[] }> {
    const model = join(env.ws, 'model.json');
    writeFileSync(model, JSON.stringify({ responses: [{ toolCalls: [{ name: 'bash', arguments: { command, timeout_ms: 60_000 } }] }, { chunks: ['done'] }] }));
    const { proc, url } = await startHttp(['--model', `scripted:${model}`, '--sandbox', 'workspace-write', '--approval', 'full-auto']);
    const sid = (await proc.call('session/new', {}))['sessionId'] as string;
    // Latencies of /health, one request at a time, from when the command starts until it ends.
    const lat: number[] = [];
    let running = false;
    let stop = false;
    const probe = (async () => {
      while (!stop) {
        const t = performance.now();
        const res = await fetch(`${url}/health`);
        await res.text();
        if (running) lat.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    void proc.call('session/message', { sessionId: sid, text: 'go' }).catch(() => {}); // answered after the turn: waited for below
    await proc.waitFor((m) => m['params']?.kind === 'tool_call_start', 20_000);
    running = true;
    const end = (await proc.waitFor((m) => m['params']?.kind === 'tool_call_end', 60_000))['params'] as Json;
    running = false;
    stop = true;
    await probe;
    const sorted = [...lat].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!.toFixed(1);
    process.stderr.write(`${command.slice(0, 20)}…: ${lat.length} /health probes, p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, worst ${at(1)} ms\n`);
    return { output: String((end['result'] as Json)['output']), lat: sorted };
  }

  const p95 = (sorted: number[]) => sorted[Math.floor(sorted.length * 0.95)]!;

  it('a fork bomb ends at its process limit while /health answers in under 100 ms (p95)', async () => {
    const { output, lat } = await measured(BOMB);
    expect(output).toMatch(/reached its process limit \(1024 processes and threads\)/);
    expect(lat.length).toBeGreaterThan(50); // ~4 s of probes every 20 ms: the server answered throughout
    expect(p95(lat)).toBeLessThan(100);
  }, 90_000);
});
