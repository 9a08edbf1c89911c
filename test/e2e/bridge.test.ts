// The cloud bridge end to end on loopback: the real relay, ferret with no HTTP port
// (`serve --bridge ws://… --no-stdio`), and a remote client speaking the HTTP API through the
// encrypted tunnel (the typed client over clients/typescript/src/bridge.mjs).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FerretApiClient, SseFrame } from '../../clients/typescript/src/index.mjs';
import { recordingProxy, startBridged, startRelay, tunnelClient, type BridgedServer, type RelayProc } from '../support/bridge.js';
import { WebSocket } from 'ws';
import { FrameCipher, fromB64url, parsePairingLink, toB64url, type BridgeDevice } from '../../clients/typescript/src/bridge.mjs';
import { FerretClient } from '../support/ferret-client.mjs';
import { eachTest } from '../support/per-test.js';
import { CHIMERA } from '../support/spawn.mjs';
import { startRedis } from '../support/redis.mjs';
import { until } from '../support/until.js';
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

describe('cloud bridge', { timeout: 60_000 }, () => {
  const { env, adopt } = eachTest(() => ({ close: async () => {} }));
  const started: { stop(): Promise<unknown> }[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });
  const relay = async (port = 0, args: string[] = []): Promise<RelayProc> => {
    const r = await startRelay(port, args);
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

  it('the relay killed mid-turn and restarted: the turn finishes, both sides reconnect, and the stream has every event once', async () => {
    const r = await relay();
    const chunks = Array.from({ length: 30 }, (_, i) => `part ${i} `);
    const srv = await bridged(r.url, { responses: [{ chunks, delayMs: 60 }] });
    const { tunnel, ferret } = tunnelClient(srv.link);
    adopt({ close: async () => tunnel.close() });
    const { sessionId: id } = await ferret.createSession({});
    let killed: Promise<void> | undefined;
    let restarted: RelayProc | undefined;
    const frames = untilResult(ferret, id, (f) => {
      // A third of the way into the reply: the relay dies (SIGKILL) and comes back on its port.
      if (!killed && f.event === 'loop_event' && f.data.kind === 'agent_message_chunk' && f.data.text === 'part 10 ') {
        killed = (async () => {
          await r.stop('SIGKILL');
          restarted = await relay(r.port);
        })();
      }
    });
    await ferret.sendMessage(id, 'talk for a while', { wait: false });
    const got = await frames;
    await killed;
    expect(restarted).toBeDefined();
    const ids = got.map((f) => f.id);
    // Every event once: the same ids, in the same order, as a fresh reading of the whole session.
    const again = await untilResult(ferret, id);
    expect(ids).toEqual(again.map((f) => f.id));
    const seqs = got.map((f) => Number(f.id.split('.')[0]) * 1000 + Number(f.id.split('.')[1] ?? 0));
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!);
    const text = got.flatMap((f) => (f.event === 'loop_event' && f.data.kind === 'agent_message_chunk' ? [f.data.text] : [])).join('');
    expect(text).toBe(chunks.join(''));
    const status = await ferret.getBridge(id);
    expect(status).toMatchObject({ attached: true, devices: 1 });
    expect(status.lastError).not.toBeNull();
  });

  it('an editor on a bridged server over stdio: its session works, and bridgeStatus follows the relay going and coming back', async () => {
    const r = await relay();
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['Hello.'] }] });
    const editor = adopt(new FerretClient(['--cwd', env.ws, '--model', `scripted:${model}`, '--bridge', r.url], { CHIMERA_HOME: env.home }));
    const init = await editor.call('initialize', {});
    expect(init).toMatchObject({ capabilities: { bridge: true } });
    const { sessionId } = (await editor.call('session/new', {})) as { sessionId: string };
    const bridgeStatus = async () => (await editor.call('session/bridgeStatus', { sessionId })) as { attached: boolean; relay: string; devices: number; reconnects: number; pairingUrl: string };
    await until('the bridge', async () => (await bridgeStatus()).attached, 10_000);
    const link = (await bridgeStatus()).pairingUrl;
    expect(editor.stderr).toContain(`pair a device, open ${link}`);
    const { tunnel, ferret } = tunnelClient(link);
    adopt({ close: async () => tunnel.close() });
    await ferret.listSessions();
    expect(await bridgeStatus()).toMatchObject({ attached: true, relay: r.url, devices: 1, reconnects: 0 });
    expect(await editor.call('session/message', { sessionId, text: 'hi' })).toMatchObject({ stopReason: 'end_turn' });
    await r.stop('SIGKILL');
    await until('the bridge', async () => {
      const s = await bridgeStatus();
      return !s.attached && s.reconnects > 0 && s.devices === 0;
    }, 10_000);
    await relay(r.port);
    await until('the bridge', async () => (await bridgeStatus()).attached, 20_000);
    expect((await bridgeStatus()).reconnects).toBe(0);
  });

  it('the relay carries no prompt, file content, path, token or secret: a capture of every byte holds none of the planted markers', async () => {
    const r = await relay();
    const proxy = await recordingProxy(r.port);
    adopt({ close: () => proxy.close() });
    const via = `ws://127.0.0.1:${proxy.port}`;
    const FILE = 'MARKER-FILE-7c1e9a';
    const PROMPT = 'MARKER-PROMPT-5b22d0';
    const TOKEN = 'MARKER-TOKEN-0f9e41aa';
    const model = writeScript(env.home, 'model.json', WRITE(`${FILE}\n`));
    const srv = await startBridged(via, ['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'full-auto'], { CHIMERA_HOME: env.home, FERRET_SERVER_TOKEN: TOKEN });
    started.push(srv);
    let device: BridgeDevice | undefined;
    const { tunnel, ferret } = tunnelClient(srv.link, { onDevice: (d) => (device = d) });
    adopt({ close: async () => tunnel.close() });
    const { sessionId: id } = await ferret.createSession({});
    const frames = untilResult(ferret, id);
    expect(await ferret.sendMessage(id, PROMPT)).toMatchObject({ stopReason: 'end_turn' });
    const fs = await frames;
    expect(JSON.stringify(fs)).toContain(FILE); // it did travel, inside the tunnel
    expect(readFileSync(join(env.ws, 'notes.txt'), 'utf8')).toContain(FILE);
    const bytes = proxy.bytes();
    expect(bytes.length).toBeGreaterThan(2000);
    const secret = parsePairingLink(srv.link)!.secret;
    for (const marker of [FILE, PROMPT, TOKEN, env.ws, 'notes.txt', secret, device!.key, id]) expect(bytes.includes(marker)).toBe(false);
  });

  it('a replayed or altered frame is refused, a client without the secret gets nothing, and a revoked device is cut off', async () => {
    const r = await relay();
    const srv = await bridged(r.url, { responses: [] });
    let device: BridgeDevice | undefined;
    const { tunnel, ferret } = tunnelClient(srv.link, { onDevice: (d) => (device = d) });
    adopt({ close: async () => tunnel.close() });
    await ferret.listSessions();
    const { route } = parsePairingLink(srv.link)!;
    const enc = new TextEncoder();

    /** A hand-driven client: hello, keys, then whatever frames the test sends; records what comes back and how it ends. */
    const raw = async (kind: 'pair' | 'device', key: Uint8Array, dev?: string) => {
      const ws = new WebSocket(`${r.url}/v1/connect?route=${route}`);
      const nonce = crypto.getRandomValues(new Uint8Array(16));
      const got: Uint8Array[] = [];
      const closed = new Promise<number>((res) => ws.on('close', (code) => res(code)));
      ws.on('message', (d: Buffer) => got.push(new Uint8Array(d)));
      await new Promise((res) => ws.on('open', res));
      ws.send(enc.encode(JSON.stringify({ v: 1, kind, ...(dev ? { device: dev } : {}), nonce: toB64url(nonce) })));
      await until('the bridge', () => got.length > 0 || ws.readyState !== ws.OPEN, 5000);
      const hello = got.length ? (JSON.parse(new TextDecoder().decode(got[0])) as { nonce: string }) : undefined;
      const cipher = hello ? await FrameCipher.derive(key, nonce, fromB64url(hello.nonce)) : undefined;
      return { ws, got, closed, cipher, seal: (m: unknown) => cipher!.seal(enc.encode(JSON.stringify(m))) };
    };
    const key = fromB64url(device!.key);

    // Replay: the same sealed request twice. The first is answered, the second ends the connection.
    const a = await raw('device', key, device!.id);
    a.ws.send(await a.seal({ t: 'hi' }));
    await until('the bridge', () => a.got.length >= 2, 5000);
    const req = await a.seal({ t: 'req', id: 1, method: 'GET', path: '/session' });
    a.ws.send(req);
    await until('the bridge', () => a.got.length >= 5, 5000); // hello, ready, head, data, end
    a.ws.send(req);
    expect(await a.closed).toBe(4403);
    const answers: { t: string }[] = [];
    for (const f of a.got.slice(1)) answers.push(JSON.parse(new TextDecoder().decode(await a.cipher!.open(f))) as { t: string });
    expect(answers.map((m) => m.t)).toEqual(['ready', 'head', 'data', 'end']);

    // Altered: one bit of a sealed frame flipped on the way.
    const b = await raw('device', key, device!.id);
    const hi = await b.seal({ t: 'hi' });
    hi[hi.length - 20]! ^= 1;
    b.ws.send(hi);
    expect(await b.closed).toBe(4403);
    expect(b.got.length).toBe(1); // the clear hello only

    // Without the secret: a pairing attempt with a key of its own gets no answer it can use.
    const c = await raw('pair', crypto.getRandomValues(new Uint8Array(32)));
    c.ws.send(await c.seal({ t: 'pair', name: 'intruder' }));
    expect(await c.closed).toBe(4403);
    expect(c.got.length).toBe(1);
    expect(srv.log.text).toMatch(/failed authentication/);

    // Revoked: `chimera ferret bridge revoke` while the device is connected.
    const listed = spawnSync(process.execPath, [CHIMERA, 'ferret', 'bridge', 'devices'], { env: { ...process.env, CHIMERA_HOME: env.home }, encoding: 'utf8' });
    expect(listed.stdout).toContain(`${device!.id}\ttest bot`);
    const revoked = spawnSync(process.execPath, [CHIMERA, 'ferret', 'bridge', 'revoke', device!.id], { env: { ...process.env, CHIMERA_HOME: env.home }, encoding: 'utf8' });
    expect(revoked.status).toBe(0);
    await until('the bridge', async () => (await ferret.listSessions().then(() => false, () => true)), 5000);
    const d = await raw('device', key, device!.id);
    expect(await d.closed).toBe(4403);
    expect(d.got.length).toBe(0);
    // The old pairing link no longer pairs (the secret changed with the revoke).
    const again = tunnelClient(srv.link);
    adopt({ close: async () => again.tunnel.close() });
    await expect(again.ferret.listSessions()).rejects.toThrow(/bridge/);
  });

  it('two relays on one Redis: ferret dialled into relay A, the client on relay B, the turn works', async () => {
    const redis = await startRedis({ persistence: false });
    adopt({ close: () => redis.close() });
    const a = await relay(0, ['--store', redis.url]);
    const b = await relay(0, ['--store', redis.url]);
    const srv = await bridged(a.url, WRITE('across relays\n'));
    const { tunnel, ferret } = tunnelClient(srv.link, { relay: b.url });
    adopt({ close: async () => tunnel.close() });
    const { sessionId: id } = await ferret.createSession({});
    expect((await ferret.listSessions()).sessions.map((s) => s.sessionId)).toEqual([id]);
    const frames = untilResult(ferret, id, async (f) => {
      if (f.event === 'loop_event' && f.data.kind === 'permission_request') await ferret.answerPermission(id, f.data.id, 'allow');
    });
    await ferret.sendMessage(id, 'write it', { wait: false });
    expect((await frames).at(-1)).toMatchObject({ event: 'result', data: { stopReason: 'end_turn' } });
    expect(readFileSync(join(env.ws, 'notes.txt'), 'utf8')).toBe('across relays\n');
    // Relay B holds the client, relay A the server.
    const health = async (r: RelayProc) => (await (await fetch(`${r.url.replace('ws:', 'http:')}/health`)).json()) as { servers: number; clients: number };
    expect(await health(a)).toMatchObject({ servers: 1, clients: 1 });
    expect(await health(b)).toMatchObject({ servers: 0 });
  });
});
