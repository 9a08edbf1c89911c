// "Notify me" and the console's service worker in Debian's chromium, through the cloud bridge.
// What headless Chromium does (found by this test): the service worker registers and activates;
// `pushManager.subscribe` fails at once in a fresh (incognito-like) context with "Registration
// failed - permission denied" and never answers in a persistent profile (it cannot reach Google's
// push service offline). The console must say so in both cases. Then a push message is delivered
// to the worker with CDP (ServiceWorker.deliverPushMessage), carrying exactly what ferret's push
// sender sent to a loopback push service (decrypted there per RFC 8291), and the notification the
// worker shows is read back. CDP cannot click a notification, and Chromium lets a worker focus a
// window only inside a trusted click: the click is dispatched in the worker with WindowClient.focus
// recorded, and the navigation to the session is real.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridged, startRelay, tunnelClient, type BridgedServer, type RelayProc } from '../support/bridge.js';
import { startPushService, type PushService } from '../support/push-service.js';
import { tempDir, tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import { until } from '../support/until.js';
import { CHROMIUM, CHROMIUM_ARGS, playwright, requireTools, ROOT, type Browser, type BrowserContext, type Page } from './support/browser.js';

const SHOTS = join(ROOT, '.tmp', 'bridge-e2e');
const T = 90_000;
const MODEL = { responses: [{ chunks: ['Writing.'], toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'hello\n' } }] }, { chunks: ['Not written.'] }] };

// The part of playwright-core's API only this test uses (service workers, CDP, permissions).
interface Worker {
  url(): string;
  /** An expression in the worker (the type-check has no DOM or worker library: browser code is text here). */
  evaluate<R>(expression: string): Promise<R>;
}
interface CDPSession {
  send(method: string, params?: object): Promise<unknown>;
  on(event: 'ServiceWorker.workerRegistrationUpdated', f: (e: { registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] }) => void): void;
}
interface PushContext extends BrowserContext {
  grantPermissions(permissions: string[], opts: { origin: string }): Promise<void>;
  serviceWorkers(): Worker[];
  newCDPSession(page: Page): Promise<CDPSession>;
  pages(): Page[];
}
interface LaunchPersistent {
  chromium: { launchPersistentContext(dir: string, opts: { executablePath: string; args: string[] }): Promise<PushContext> };
}
interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  requireInteraction: boolean;
  data: { session?: string };
}

describe('"Notify me" and the service worker through the cloud bridge', () => {
  let env: TempEnv;
  let relay: RelayProc;
  let srv: BridgedServer;
  let svc: PushService;
  let browser: Browser | undefined;
  let persistent: PushContext | undefined;
  let origin: string;
  let sessionId: string;

  beforeAll(async () => {
    requireTools();
    mkdirSync(SHOTS, { recursive: true });
    env = tempEnv();
    svc = await startPushService();
    relay = await startRelay();
    const model = writeScript(env.home, 'model.json', MODEL);
    // A question nobody answers is denied after 1 s, so the turn ends by itself.
    srv = await startBridged(relay.url, ['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'suggest', '--permission-timeout', '1'], { CHIMERA_HOME: env.home });
    origin = new URL(srv.link).origin;
    const bot = tunnelClient(srv.link);
    ({ sessionId } = await bot.ferret.createSession({}));
    bot.tunnel.close();
  }, T);

  afterAll(async () => {
    await browser?.close();
    await persistent?.close();
    await srv?.stop();
    await relay?.stop();
    await svc?.close();
    env?.cleanup();
  }, 30_000);

  /** The console through the bridge, on the session's page, with "Notify me" on screen. */
  async function openSession(ctx: PushContext): Promise<Page> {
    await ctx.grantPermissions(['notifications'], { origin });
    const page = await ctx.newPage();
    await page.goto(srv.link);
    await page.locator(`tr[data-session="${sessionId}"] a`).click({ timeout: 20_000 });
    await page.locator('.notify button', { hasText: 'Notify me' }).waitFor({ timeout: 15_000 });
    return page;
  }

  it('registers the worker, says why the browser refused a subscription, and shows the notification for what ferret pushed', async () => {
    browser = await playwright().chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const ctx = (await browser.newContext({ viewport: { width: 1200, height: 860 } })) as PushContext;
    const page = await openSession(ctx);
    await page.locator('.notify button', { hasText: 'Notify me' }).click();

    // The worker is registered for the whole console and running.
    const reg = await until('/sw.js registered and active', () =>
      page.evaluate<{ script: string; scope: string } | null>(
        `navigator.serviceWorker.getRegistration('/').then((r) => (r?.active?.state === 'activated' ? { script: r.active.scriptURL, scope: r.scope } : null))`,
      ),
    );
    expect(reg).toEqual({ script: `${origin}/sw.js`, scope: `${origin}/` });
    // It took this tab too (a notification's click can only navigate a tab the worker controls).
    expect(await until('the tab controlled', () => page.evaluate<string | null>('navigator.serviceWorker.controller?.scriptURL ?? null'))).toBe(`${origin}/sw.js`);
    // Chromium has no push in this context: the console says so, and the button comes back.
    const alert = page.locator('.notify [role=alert]');
    await alert.waitFor({ timeout: 15_000 });
    expect(await alert.innerText()).toMatch(/^this browser refused a push subscription \(.+\); private windows cannot receive push messages$/);
    expect(await page.locator('.notify').getAttribute('data-notify')).toBe('off');
    expect(await page.evaluate<unknown>(`navigator.serviceWorker.getRegistration('/').then((r) => r.pushManager.getSubscription())`)).toBeNull();
    await page.screenshot({ path: join(SHOTS, '4-notify-refused.png') });

    // What ferret sends when a permission waits: a device with a loopback subscription, then a turn.
    const device = tunnelClient(srv.link);
    await device.tunnel.setPush(svc.subscribe());
    await device.ferret.sendMessage(sessionId, 'write the notes', { wait: false });
    device.tunnel.close();
    const pushed = await until('ferret to push the permission request', () => svc.received.find((m) => JSON.parse(m.text).kind === 'permission'), 15_000);
    expect(JSON.parse(pushed.text)).toEqual({ v: 1, kind: 'permission', sessionId });

    // The console closed (a visible console window keeps the worker quiet); the push arrives.
    const blank = await ctx.newPage();
    await page.close();
    const cdp = await ctx.newCDPSession(blank);
    let registrationId: string | undefined;
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
      registrationId ??= e.registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted)?.registrationId;
    });
    await cdp.send('ServiceWorker.enable');
    await until('the registration id from CDP', () => registrationId);
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: pushed.text });
    const worker = ctx.serviceWorkers().find((w) => w.url() === `${origin}/sw.js`);
    expect(worker).toBeDefined();
    const shown = () =>
      worker!.evaluate<ShownNotification[]>(
        `self.registration.getNotifications().then((ns) => ns.map((n) => ({ title: n.title, body: n.body, tag: n.tag, requireInteraction: n.requireInteraction, data: n.data })))`,
      );
    const [note] = await until('the notification', async () => ((await shown()).length ? shown() : undefined), 10_000);
    expect(note).toEqual({ title: 'ferret is waiting for your answer', body: 'A tool needs your permission. Tap to review it.', tag: `permission:${sessionId}`, requireInteraction: true, data: { session: sessionId } });

    // A console window in view: a finished turn pushed now shows nothing on top of it.
    await blank.goto(`${origin}/#/`);
    await blank.locator(`tr[data-session="${sessionId}"]`).waitFor({ timeout: 15_000 });
    const turnEnd = await until('ferret to push the finished turn', () => svc.received.find((m) => JSON.parse(m.text).kind === 'turn_end'), 15_000);
    await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: turnEnd.text });
    await new Promise((r) => setTimeout(r, 500));
    expect((await shown()).map((n) => n.tag)).toEqual([`permission:${sessionId}`]);

    // A click on the notification: the console window is focused and shows that session.
    const focused = await worker!.evaluate<{ calls: string[]; left: number }>(`(async () => {
      const calls = [];
      // Chromium allows focus only inside a trusted click; recorded here instead.
      WindowClient.prototype.focus = function () {
        calls.push(this.url);
        return Promise.resolve(this);
      };
      const [n] = await self.registration.getNotifications();
      const ev = new NotificationEvent('notificationclick', { notification: n });
      const work = [];
      // A synthetic event's own waitUntil throws (it is not trusted); the worker's promise is kept here.
      Object.defineProperty(ev, 'waitUntil', { value: (p) => work.push(p) });
      self.dispatchEvent(ev);
      await Promise.all(work);
      return { calls, left: (await self.registration.getNotifications()).length };
    })()`);
    expect(focused).toEqual({ calls: [`${origin}/#/`], left: 0 });
    await until('the console on the session', () => blank.url() === `${origin}/#/s/${sessionId}`, 10_000);
    await blank.locator('section[data-bridge]').waitFor({ timeout: 15_000 });
    await blank.screenshot({ path: join(SHOTS, '5-opened-from-notification.png') });
  }, T);

  it('says so when the browser\'s push service never answers (a persistent profile offline), instead of a button that stays busy', async () => {
    const pw = playwright() as unknown as LaunchPersistent;
    persistent = await pw.chromium.launchPersistentContext(tempDir('chromium-profile'), { executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await openSession(persistent);
    await page.locator('.notify button', { hasText: 'Notify me' }).click();
    expect(await page.locator('.notify').getAttribute('data-notify')).toBe('busy');
    const alert = page.locator('.notify [role=alert]');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.innerText()).toBe("the browser's push service did not answer in 15 s; it may be unreachable from this device (some Chromium builds have none)");
    expect(await page.locator('.notify').getAttribute('data-notify')).toBe('off');
    expect(await page.locator('.notify button', { hasText: 'Notify me' }).isVisible()).toBe(true);
  }, T);
});
