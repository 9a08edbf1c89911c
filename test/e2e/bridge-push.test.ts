// Web Push through the cloud bridge, end to end on loopback: the real relay, ferret bridged with
// no HTTP port, a paired device that opts in through the encrypted tunnel, and a loopback push
// service that checks VAPID, decrypts each message per RFC 8291 with the subscription's private
// key, and finds nothing of the prompt, the path, the file or the title in it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import type { BridgeDevice } from '../../clients/typescript/src/bridge.mjs';
import { startBridged, startRelay, tunnelClient } from '../support/bridge.js';
import { eachTest } from '../support/per-test.js';
import { startPushService, type PushService } from '../support/push-service.js';
import { CHIMERA } from '../support/spawn.mjs';
import { until } from '../support/until.js';
import { writeScript } from '../support/temp.mjs';

const PROMPT = 'PROMPT-MARKER-7f3a please write the launch codes';
const PATH = 'secret-PATH-MARKER-91c.txt';
const CONTENT = 'CONTENT-MARKER-d00d const key = 42;';
const TITLE = 'TITLE-MARKER-55aa launch codes';
const MARKERS = ['PROMPT-MARKER', 'PATH-MARKER', 'CONTENT-MARKER', 'TITLE-MARKER', 'launch codes', 'write_file', 'notes'];

const write = { chunks: ['Writing.'], toolCalls: [{ name: 'write_file', arguments: { path: PATH, content: CONTENT } }] };
const SCRIPT = { title: TITLE, responses: [write, { chunks: ['Not written.'] }, { chunks: ['Hello again.'] }, write, { chunks: ['Fine.'] }] };

describe('Web Push through the bridge', { timeout: 60_000 }, () => {
  const { env, adopt } = eachTest(() => ({ close: async () => {} }));
  const started: { stop(): Promise<unknown> }[] = [];
  let svc: PushService | undefined;
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
    await svc?.close();
  });

  it('a permission request and a turn that ends while the console is closed reach the push service, encrypted, with no code, path or prompt', async () => {
    svc = await startPushService();
    const r = await startRelay();
    started.push(r);
    const model = writeScript(env.home, 'model.json', SCRIPT);
    // A question nobody answers is denied after 1 s: the turn ends with no console open.
    const srv = await startBridged(r.url, ['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'suggest', '--permission-timeout', '1'], { CHIMERA_HOME: env.home });
    started.push(srv);

    let device: BridgeDevice | undefined;
    const first = tunnelClient(srv.link, { onDevice: (d) => (device = d) });
    adopt({ close: async () => first.tunnel.close() });

    // A subscription ferret cannot use is refused with the field named; the connection stays.
    await expect(first.tunnel.setPush({ endpoint: 'http://10.0.0.5/push/x', keys: svc.subscribe().keys })).rejects.toThrow(/subscription\.endpoint: endpoint must be an https URL/);
    await expect(first.tunnel.setPush({ ...svc.subscribe(), keys: { p256dh: 'AAAA', auth: 'AAAA' } })).rejects.toThrow(/subscription\.keys.*p256dh/);

    const sub = svc.subscribe();
    await first.tunnel.setPush(sub);
    // ferret's VAPID key, for the browser's applicationServerKey: a P-256 point.
    expect(Buffer.from(first.tunnel.pushKey!, 'base64url')).toHaveLength(65);
    const kept = JSON.parse(readFileSync(join(env.home, 'ferret', 'bridge.json'), 'utf8')) as { devices: { id: string; push?: { endpoint: string } }[] };
    expect(kept.devices.find((d) => d.id === device!.id)?.push?.endpoint).toBe(sub.endpoint);
    const listed = spawnSync(process.execPath, [CHIMERA, 'ferret', 'bridge', 'devices'], { env: { ...process.env, CHIMERA_HOME: env.home }, encoding: 'utf8' });
    expect(listed.stdout).toMatch(/notifications on/);

    const { sessionId: id } = await first.ferret.createSession({});
    await first.ferret.sendMessage(id, PROMPT, { wait: false });
    // The person closes the console before the question comes.
    first.tunnel.close();

    await until('a permission push and a turn-end push', () => svc!.received.length >= 2, 15_000);
    expect(svc.refused).toEqual([]);
    const [perm, done] = svc.received.map((m) => ({ ...m, json: JSON.parse(m.text) as Record<string, unknown> }));
    expect(perm!.json).toEqual({ v: 1, kind: 'permission', sessionId: id });
    expect(perm!.headers).toMatchObject({ urgency: 'high', 'content-encoding': 'aes128gcm' });
    expect(Number(perm!.headers['ttl'])).toBeGreaterThan(0);
    expect(done!.json).toEqual({ v: 1, kind: 'turn_end', sessionId: id, stopReason: 'end_turn' });
    // Signed by the key the browser subscribed with, for the push service's origin.
    expect(perm!.vapidKey).toBe(first.tunnel.pushKey);
    expect(perm!.claims.aud).toBe(svc.origin);
    for (const m of svc.received) for (const marker of MARKERS) expect(m.text + m.body.toString('latin1')).not.toContain(marker);

    // The console open again: a turn that ends while the person watches sends nothing.
    const again = tunnelClient(srv.link, { device: device! });
    adopt({ close: async () => again.tunnel.close() });
    const result = await again.ferret.sendMessage(id, 'and again');
    expect(result.stopReason).toBe('end_turn');
    await new Promise((res) => setTimeout(res, 800));
    expect(svc.received).toHaveLength(2);

    // The browser drops its subscription: the next push gets 410 and ferret forgets it.
    svc.drop(sub.endpoint);
    await again.ferret.sendMessage(id, 'once more', { wait: false });
    await until(
      'the dropped subscription forgotten',
      () => {
        const now = JSON.parse(readFileSync(join(env.home, 'ferret', 'bridge.json'), 'utf8')) as typeof kept;
        return now.devices.find((d) => d.id === device!.id)?.push === undefined;
      },
      15_000,
    );
  });
});
