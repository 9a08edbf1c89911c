import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import type { Browser, Page } from './support/browser.js';
import { CONSOLE_SHOTS as SHOTS, openBrowser } from './support/open.js';

// The console's session list in Chromium: the search box narrows the table, Rename changes a
// title on the server (GET /session shows it), Delete asks and removes the session for good.
// Screenshot: .tmp/console-e2e/session-list.png (and FERRET_LIST_SHOT when set).

const T = 60_000;

describe('the console session list: search, rename, delete (Chromium)', () => {
  let env: TempEnv;
  let server: { proc: FerretClient; url: string };
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ({ browser, page, pageErrors } = await openBrowser({ viewport: { width: 1300, height: 760 }, shots: SHOTS }));
    env = tempEnv();
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['One.'] }, { chunks: ['Two.'] }] });
    server = await startHttp(['--cwd', env.ws, '--model', `scripted:${model}`], { CHIMERA_HOME: env.home });
  }, T);

  afterAll(async () => {
    await browser?.close();
    await server?.proc.close();
    env?.cleanup();
  }, 30_000);

  it('search narrows, Rename saves a new title, Delete removes the session', async () => {
    const { url } = server;
    const ids: string[] = [];
    for (const text of ['fix the parser bug', 'write the release notes']) {
      const id = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
      expect((await api(url, 'POST', `/session/${id}/message`, { text })).status).toBe(200);
      ids.push(id);
    }
    await page.goto(`${url}/#/`);
    const rows = page.locator('table.sessions tbody tr');
    await rows.nth(1).waitFor({ timeout: 10_000 });
    expect(await rows.count()).toBe(2);

    await page.locator('input[name=search]').fill('parser');
    await page.waitForFunction("document.querySelectorAll('table.sessions tbody tr').length === 1");
    expect(await rows.first().getAttribute('data-session')).toBe(ids[0]);
    await page.locator('input[name=search]').fill('nothing like this');
    await page.locator('p', { hasText: 'No session matches' }).waitFor();
    await page.locator('input[name=search]').fill('');

    const first = page.locator(`tr[data-session="${ids[0]}"]`);
    await first.locator('button[aria-label^="Rename"]').click();
    const input = first.locator('input[aria-label^="New title"]');
    expect(await input.inputValue()).toBe('fix the parser bug');
    await input.fill('Parser: last token dropped');
    await page.screenshot({ path: join(SHOTS, 'session-list.png') });
    if (process.env['FERRET_LIST_SHOT']) await page.screenshot({ path: process.env['FERRET_LIST_SHOT'] });
    await page.keyboard.press('Enter');
    await first.locator('a', { hasText: 'Parser: last token dropped' }).waitFor({ timeout: 5000 });
    expect((await api(url, 'GET', `/session/${ids[0]}`)).body['title']).toBe('Parser: last token dropped');

    const second = page.locator(`tr[data-session="${ids[1]}"]`);
    page.on('dialog', (d) => void d.accept());
    await second.locator('button[aria-label^="Delete"]').click();
    await second.waitFor({ state: 'detached', timeout: 5000 });
    expect((await api(url, 'GET', `/session/${ids[1]}`)).status).toBe(404);
    expect(pageErrors).toEqual([]);
  }, T);
});
