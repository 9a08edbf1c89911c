// The cloud bridge end to end on loopback: the real relay, ferret with no HTTP port
// (`serve --bridge ws://… --no-stdio`), and a remote client speaking the HTTP API through the
// encrypted tunnel (the typed client over clients/typescript/src/bridge.mjs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FerretApiClient, SseFrame } from '../../clients/typescript/src/index.mjs';
import { recordingProxy, startBridged, startRelay, tunnelClient, type BridgedServer, type RelayProc } from '../support/bridge.js';
import { eachTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

const WRITE = (content: string) => ({
  responses: [
    { chunks: ["I'll write ", 'notes.txt.'], toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content } }] },
    { chunks: ['Written.'] },
  ],
});

/** Frames of one session's stream until its first result. */
async function untilResult(ferret: FerretApiClient, id: string, onFrame: (f: SseFrame) => void | Promise<void> = () => {}): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const stream = ferret.events(id, { lastEventId: '0', retryMs: 100, maxRetryMs: 500, maxRetries: 200 });
  for await (const f of stream) {
    frames.push(f);
    await onFrame(f);
    if (f.event === 'result') break;
  }
  stream.close();
  return frames;
}

describe('cloud bridge', () => {
  const { env, adopt } = eachTest(() => ({ close: async () => {} }));
  const started: { stop(): Promise<unknown> }[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });
  const relay = async (port = 0): Promise<RelayProc> => {
    const r = await startRelay(port);
    started.push(r);
    return r;
  };
  const bridged = async (url: string, script: unknown, extra: string[] = []): Promise<BridgedServer> => {
    const model = writeScript(env.home, 'model.json', script);
    const s = await startBridged(url, ['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'suggest', ...extra], { CHIMERA_HOME: env.home });
    started.push(s);
    return s;
  };

  it('a paired client lists sessions, runs a turn with a permission request through the tunnel, and sees the diff and the result', async () => {
    const r = await relay();
    const srv = await bridged(r.url, WRITE('hello from afar\n'));
    expect(srv.link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#pair=[\w-]{22}\.[\w-]{43}$/);
    const { tunnel, ferret } = tunnelClient(srv.link);
    adopt({ close: async () => tunnel.close() });

    expect((await ferret.listSessions()).sessions).toEqual([]);
    const { sessionId: id } = await ferret.createSession({});
    expect((await ferret.listSessions()).sessions.map((s) => s.sessionId)).toEqual([id]);
    const status = await ferret.getBridge(id);
    expect(status).toMatchObject({ attached: true, relay: r.url, devices: 1, lastError: null, reconnects: 0 });
    expect(status.pairingUrl).toBe(srv.link);

    const frames = untilResult(ferret, id, async (f) => {
      if (f.event === 'loop_event' && f.data.kind === 'permission_request') await ferret.answerPermission(id, f.data.id, 'allow');
    });
    const accepted = await ferret.sendMessage(id, 'write the notes', { wait: false });
    expect(typeof accepted.turnId).toBe('string');
    const fs = await frames;
    expect(fs.some((f) => f.event === 'loop_event' && f.data.kind === 'permission_request')).toBe(true);
    const diff = fs.find((f) => f.event === 'code/diff');
    expect(diff?.event === 'code/diff' && diff.data.unifiedDiff).toContain('+hello from afar');
    expect(fs.at(-1)).toMatchObject({ event: 'result', data: { stopReason: 'end_turn' } });
    expect(readFileSync(join(env.ws, 'notes.txt'), 'utf8')).toBe('hello from afar\n');
    // The device the pairing made is listed under CHIMERA_HOME.
    const identity = JSON.parse(readFileSync(join(env.home, 'ferret', 'bridge.json'), 'utf8')) as { devices: { id: string; name: string }[] };
    expect(identity.devices.map((d) => d.name)).toEqual(['test bot']);
  });
});
