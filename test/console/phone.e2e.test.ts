import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import type { Browser, Page } from './support/browser.js';
import { CONSOLE_SHOTS as SHOTS, openBrowser, openSession } from './support/open.js';

// The web console on a phone (390 × 844, Chromium): a session with a wide code block, a diff and
// a long command leaves nothing cut off — the page never scrolls sideways, wide things scroll
// inside their own box — and Send and Stop stay on screen. An unknown `/command` is answered on
// the page and never reaches the model. Screenshot: .tmp/console-e2e/phone.png.

const T = 60_000;
const WIDE = `const veryLongLine = ${JSON.stringify('x'.repeat(240))}; // a line far wider than a phone`;
const MODEL = {
  responses: [
    {
      chunks: ['Here is the change:\n\n```ts\n', `${WIDE}\nfunction add(a: number, b: number) {\n  return a + b; // sum\n}\n`, '```\n\nWriting it now.'],
      toolCalls: [{ name: 'write_file', arguments: { path: 'src/wide.ts', content: `${WIDE}\nexport const n = 42;\n` } }],
    },
    { chunks: ['Written.'] },
    { chunks: ['Running a slow check.'], toolCalls: [{ name: 'bash', arguments: { command: `sleep 20 # ${'a long comment '.repeat(12)}` } }] },
    { chunks: ['(not reached)'] },
  ],
};

/** Elements wider than the viewport that are not inside a box that scrolls them. */
const overflowing = (page: Page) =>
  page.evaluate<string[]>(`(() => {
    const vw = document.documentElement.clientWidth;
    const scrolls = (el) => { for (let e = el.parentElement; e; e = e.parentElement) { const s = getComputedStyle(e); if ((s.overflowX === 'auto' || s.overflowX === 'scroll' || s.overflowX === 'hidden') && e.getBoundingClientRect().right <= vw + 1) return true; } return false; };
    return [...document.querySelectorAll('body *')].filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.right > vw + 1 && !scrolls(el); }).map((el) => el.tagName.toLowerCase() + '.' + el.className);
  })()`);

const onScreen = (page: Page, selector: string) =>
  page.evaluate<boolean>(`(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return r.width > 0 && r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight; })()`);

describe('the web console on a phone (390 × 844, Chromium)', () => {
  let env: TempEnv;
  let server: { proc: FerretClient; url: string };
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    ({ browser, page } = await openBrowser({ viewport: { width: 390, height: 844 }, shots: SHOTS }));
    env = tempEnv();
    const model = writeScript(env.home, 'model.json', MODEL);
    server = await startHttp(['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'full-auto'], { CHIMERA_HOME: env.home });
  }, T);

  afterAll(async () => {
    await browser?.close();
    await server?.proc.close();
    env?.cleanup();
  }, 30_000);

  it('shows a wide code block, a diff and a long command with nothing cut off; Send and Stop stay reachable', async () => {
    const { url } = server;
    const sid = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    await openSession(page, url, sid);
    await page.locator('#composer-text').fill('add the wide file');
    await page.locator('#composer-text').press('Enter');
    await page.locator('.diff').first().waitFor({ timeout: 15_000 });
    await page.locator('.md-code').first().waitFor();
    // The command runs (Stop is live) while we look.
    await page.locator('#composer-text').fill('run the slow check');
    await page.locator('main.session[data-running=false]').waitFor({ state: 'attached', timeout: 15_000 });
    await page.locator('#composer-text').press('Enter');
    await page.locator('main.session[data-running=true]').waitFor({ state: 'attached', timeout: 15_000 });
    await page.locator('.out', { hasText: 'sleep 20' }).first().waitFor({ timeout: 15_000 }).catch(() => undefined);

    expect(await overflowing(page)).toEqual([]);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await onScreen(page, '.composer button[type=submit]')).toBe(true);
    expect(await onScreen(page, '.composer .btn-stop')).toBe(true);
    // The diff header names the file relative to the workspace, and code is highlighted.
    expect(await page.locator('.diff-path').first().innerText()).toBe('src/wide.ts');
    expect(await page.locator('.md-code .tok-kw').first().innerText()).toBe('const');
    expect(await page.locator('.diff .tok-kw').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'phone.png') });

    // Enter during the turn queues the message (said at the composer); Esc stops the turn and
    // puts the queued message back in the box instead of sending it.
    await page.locator('#composer-text').fill('and then summarize');
    await page.locator('#composer-text').press('Enter');
    await page.locator('.composer-note', { hasText: 'Queued, sent when this turn ends: and then summarize' }).waitFor();
    expect(await page.locator('#composer-text').inputValue()).toBe('');
    await page.locator('#composer-text').press('Escape');
    await page.locator('main.session[data-running=false]').waitFor({ state: 'attached', timeout: 10_000 });
    expect(await page.locator('#composer-text').inputValue()).toBe('and then summarize');
  }, T);

  it('answers an unknown /command on the page, with no turn started', async () => {
    const sid = /#\/s\/(.+)$/.exec(page.url())![1]!;
    const before = (await api(server.url, 'GET', `/session/${sid}/prompts?after=0`)).body['prompts'] as unknown[];
    await page.locator('#composer-text').fill('/nonsense');
    await page.locator('#composer-text').press('Enter');
    await page.locator('[role=alert]', { hasText: '/nonsense is not a command here' }).waitFor({ timeout: 5_000 });
    await new Promise((r) => setTimeout(r, 500));
    const after = (await api(server.url, 'GET', `/session/${sid}/prompts?after=0`)).body['prompts'] as unknown[];
    expect(after.length).toBe(before.length);
  }, T);

  it('says who sent each prompt: you, or a bot by the name it gave', async () => {
    const sid = /#\/s\/(.+)$/.exec(page.url())![1]!;
    expect((await api(server.url, 'POST', `/session/${sid}/message?wait=false`, { text: 'nightly check from the bot' }, undefined, { 'x-ferret-client': 'ci-bot' })).status).toBe(202);
    const bot = page.locator('.msg-user', { hasText: 'nightly check from the bot' });
    await bot.waitFor({ timeout: 10_000 });
    await page.locator('.msg-user[data-seq] .who[data-origin="http:ci-bot"]').waitFor({ timeout: 10_000 });
    expect(await bot.locator('.who').innerText()).toBe('ci-bot (bot)');
    expect(await page.locator('.msg-user', { hasText: 'add the wide file' }).locator('.who').innerText()).toBe('You');
  }, T);
});
