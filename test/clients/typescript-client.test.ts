import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFerretClient, type SseFrame } from '../../clients/typescript/src/index.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { REPO } from '../support/spawn.mjs';
import { SseClient, type SseFrame as RawFrame } from '../support/sse.mjs';
import { removeDir, tempDir, writeScript } from '../support/temp.mjs';

const PKG = join(REPO, 'clients/typescript');
const REFRESH = 'run `npm run gen:client` (builds, then regenerates clients/typescript/openapi.json and src/schema.d.ts) and commit the result';

/** The first line where two texts differ, for a readable failure. */
function firstDiff(a: string, b: string): string | undefined {
  if (a === b) return undefined;
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return `line ${i + 1}: committed ${JSON.stringify(la[i] ?? '(end)')}, built server gives ${JSON.stringify(lb[i] ?? '(end)')}`;
  }
  return 'they differ';
}

describe('the typed client (clients/typescript)', () => {
  it('its openapi.json and schema.d.ts are what the built server serves and openapi-typescript makes of it', () => {
    const out = tempDir('client-gen');
    try {
      const r = spawnSync(process.execPath, [join(PKG, 'scripts/generate.mjs'), '--out', out], { cwd: REPO, encoding: 'utf8', timeout: 90_000 });
      expect(r.status, `generate.mjs failed: ${r.stderr}`).toBe(0);
      for (const [committed, fresh] of [
        [join(PKG, 'openapi.json'), join(out, 'openapi.json')],
        [join(PKG, 'src/schema.d.ts'), join(out, 'schema.d.ts')],
      ] as const) {
        const diff = firstDiff(readFileSync(committed, 'utf8'), readFileSync(fresh, 'utf8'));
        expect(diff, `${committed.slice(REPO.length + 1)} is stale (${diff}): ${REFRESH}`).toBeUndefined();
      }
    } finally {
      removeDir(out);
    }
  }, 120_000);

  it('has a typed call for every operation of the document', () => {
    const doc = JSON.parse(readFileSync(join(PKG, 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId: string }>> };
    const client = createFerretClient({ baseUrl: 'http://127.0.0.1:1' }) as unknown as Record<string, unknown>;
    const missing = Object.values(doc.paths)
      .flatMap((item) => Object.values(item).map((op) => op.operationId))
      .map((opId) => (opId === 'streamEvents' ? 'events' : opId))
      .filter((name) => typeof client[name] !== 'function');
    expect(missing, 'operations without a method in clients/typescript/src/index.mjs (+ index.d.mts)').toEqual([]);
  });

  it('redocly lint (recommended rules) passes its openapi.json with 0 errors and 0 warnings', () => {
    const r = spawnSync(join(REPO, 'node_modules/.bin/redocly'), ['lint', join(PKG, 'openapi.json'), '--extends=recommended', '--format=json'], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(r.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.status, r.stderr).toBe(0);
  }, 120_000);
});

/**
 * An HTTP proxy in front of the server that can cut every open response, rewind the
 * Last-Event-ID a reconnecting client sends (so the server replays frames the client already
 * has), and prepend a `retry:` to every event stream.
 */
async function cuttingProxy(target: string, retryMs: number) {
  const t = new URL(target);
  const open = new Set<ServerResponse>();
  const seen: { lastEventId: string | undefined; sentAs: string | undefined; at: number }[] = [];
  let rewindTo: string | undefined;
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers, host: t.host };
    const asked = req.headers['last-event-id'] as string | undefined;
    if (asked !== undefined && rewindTo !== undefined) headers['last-event-id'] = rewindTo;
    seen.push({ lastEventId: asked, sentAs: headers['last-event-id'] as string | undefined, at: Date.now() });
    const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers, agent: false }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      if (String(ur.headers['content-type']).startsWith('text/event-stream')) res.write(`retry: ${retryMs}\n\n`);
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    open.add(res);
    res.on('close', () => {
      open.delete(res);
      up.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    rewind: (id: string | undefined) => (rewindTo = id),
    /** Drops every open connection the way a network cut would. */
    cut: () => {
      for (const res of open) res.socket?.destroy();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('the typed client against a live server', () => {
  const { env, startHttp } = ferretPerTest();
  const TOKEN = 'client-token-0123456789';

  it('cut twice mid-turn (the second time the proxy rewinds Last-Event-ID to 0): the frames equal an uninterrupted stream, none twice, none lost', async () => {
    const script = {
      responses: [
        { chunks: ['a', 'b'], toolCalls: [{ name: 'bash', arguments: { command: 'for i in 1 2 3 4 5; do echo $i; sleep 0.05; done' } }] },
        { chunks: Array.from({ length: 80 }, (_, i) => `c${i} `), delayMs: 15 },
      ],
    };
    const model = writeScript(env.home, 'model.json', script);
    const { url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'full-auto'], { FERRET_SERVER_TOKEN: TOKEN });
    const proxy = await cuttingProxy(url, 150);
    try {
      const direct = createFerretClient({ baseUrl: url, token: TOKEN });
      const viaProxy = createFerretClient({ baseUrl: proxy.url, token: TOKEN });
      const { sessionId } = await direct.createSession();
      const whole = new SseClient(url, `/session/${sessionId}/events`, { token: TOKEN });
      const stream = viaProxy.events(sessionId, { retryMs: 10 });
      await Promise.all([whole.opened, stream.opened]);
      const { turnId } = await direct.sendMessage(sessionId, 'go', { wait: false });
      const got: SseFrame[] = [];
      const connOf: number[] = []; // which connection (0, 1, 2) each frame came on
      const cuts: number[] = [];
      for await (const f of stream) {
        got.push(f);
        connOf.push(stream.reconnects);
        if (got.length === 15 || got.length === 40) {
          if (got.length === 40) proxy.rewind('0'); // the server now replays the whole session
          cuts.push(Date.now());
          proxy.cut();
        }
        if (f.event === 'result' && f.data.turnId === turnId) break;
      }
      await whole.waitFor((fs) => fs.some((f) => f.event === 'result'));
      whole.close();
      const key = (f: { id: string; event: string; data: unknown }) => `${f.id}|${f.event}|${JSON.stringify(f.data)}`;
      const keys = got.map(key);
      expect(new Set(keys).size, 'no frame twice').toBe(keys.length);
      expect(keys).toEqual(whole.frames.map((f: RawFrame) => key(f)));
      expect(stream.reconnects).toBe(2);
      // Each reconnect asked for the frames after the last one yielded, after the server's retry: (150 ms).
      const reconnects = proxy.seen.slice(1);
      const lastOn = (conn: number) => got[connOf.lastIndexOf(conn)]!.id;
      expect(reconnects.map((s) => s.lastEventId)).toEqual([lastOn(0), lastOn(1)]);
      expect(reconnects[1]!.sentAs).toBe('0');
      for (const [i, s] of reconnects.entries()) expect(s.at - cuts[i]!, `reconnect ${i + 1} waited retry:`).toBeGreaterThanOrEqual(145);
    } finally {
      await proxy.close();
    }
  }, 30_000);
});
