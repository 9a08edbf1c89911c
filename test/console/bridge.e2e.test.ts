// The web console through the cloud bridge, in Debian's chromium: the relay serves the page, the
// pairing link carries the secret in its fragment, and every API call and the event stream go
// through the encrypted tunnel to a ferret that listens on no port (`serve --bridge … --no-stdio`).
// Screenshots land in .tmp/bridge-e2e/.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridged, startRelay, tunnelClient, type BridgedServer, type RelayProc } from '../support/bridge.js';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import { ROOT, type Browser, type Page } from './support/browser.js';
import { openBrowser } from './support/open.js';

const SHOTS = join(ROOT, '.tmp', 'bridge-e2e');
const T = 60_000;
const MODEL = {
  responses: [
    { chunks: ["I'll write ", 'the notes.'], toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content: 'written from a phone\n' } }] },
    { chunks: ['All **done**.'] },
  ],
};

describe('the web console through the cloud bridge', () => {
  let env: TempEnv;
  let relay: RelayProc;
  let srv: BridgedServer;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ({ browser, page, pageErrors } = await openBrowser({ viewport: { width: 1200, height: 860 }, shots: SHOTS }));
    env = tempEnv();
    relay = await startRelay();
    const model = writeScript(env.home, 'model.json', MODEL);
    srv = await startBridged(relay.url, ['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'suggest'], { CHIMERA_HOME: env.home });
  }, T);

  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await relay?.stop();
    env?.cleanup();
  }, 30_000);

  it('opens the pairing link, lists sessions, runs a turn with a permission request, and shows the diff and the result', async () => {
    // A session a bot started through the bridge, for the list to show.
    const bot = tunnelClient(srv.link);
    const { sessionId } = await bot.ferret.createSession({});
    bot.tunnel.close();

    await page.goto(srv.link);
    const row = page.locator(`tr[data-session="${sessionId}"]`);
    await row.waitFor({ timeout: 15_000 });
    // The secret left the address bar; the device key it earned stays in this browser.
    expect(page.url()).not.toContain('#pair=');
    const kept = await page.evaluate<string | null>("localStorage.getItem('ferret.bridge')");
    expect(JSON.parse(kept ?? '{}')).toMatchObject({ device: { id: expect.stringMatching(/^dev_/) as unknown } });
    await page.screenshot({ path: join(SHOTS, '1-session-list.png') });

    await row.locator('a').click();
    await page.locator('[data-connection=live]').waitFor({ timeout: 10_000 });
    await page.locator('#composer-text').fill('Write the notes, please');
    await page.keyboard.press('Enter');
    const prompt = page.locator('.prompt');
    await prompt.waitFor({ timeout: 15_000 });
    expect(await prompt.innerText()).toContain('notes.md');
    await page.screenshot({ path: join(SHOTS, '2-permission-request.png') });
    await prompt.locator('button', { hasText: 'Allow once' }).click();
    await page.locator('.tool .dl-add', { hasText: 'written from a phone' }).waitFor({ timeout: 15_000 });
    await page.locator('.msg-agent strong', { hasText: 'done' }).waitFor({ timeout: 15_000 });
    // The sidebar says the bridge is up, with this browser as the connected device, and offers the link.
    const panel = page.locator('section[data-bridge=attached]');
    await panel.waitFor({ timeout: 10_000 });
    expect(await panel.locator('[data-devices]').innerText()).toBe('1');
    await panel.locator('summary', { hasText: 'Pair a device' }).click();
    expect(await panel.locator('[data-pairing]').innerText()).toBe(srv.link);
    await page.screenshot({ path: join(SHOTS, '3-diff-and-result.png') });
    expect(readFileSync(join(env.ws, 'notes.md'), 'utf8')).toBe('written from a phone\n');

    // A reload pairs nothing new: the kept device key reconnects.
    await page.reload();
    await page.locator('.msg-agent strong', { hasText: 'done' }).waitFor({ timeout: 15_000 });
    const identity = JSON.parse(readFileSync(join(env.home, 'ferret', 'bridge.json'), 'utf8')) as { devices: { name: string }[] };
    expect(identity.devices.map((d) => d.name)).toEqual(['test bot', expect.stringMatching(/^web console/) as unknown]);
    expect(pageErrors).toEqual([]);
  }, T);
});
