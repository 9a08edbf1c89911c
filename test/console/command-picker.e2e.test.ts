import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import { axe, type Browser, type Page } from './support/browser.js';
import { CONSOLE_SHOTS as SHOTS, openBrowser, openSession } from './support/open.js';

// The console's `/` picker in Chromium: a team command file (.ferret/commands/review.md) and the
// person's own ($CHIMERA_HOME/ferret/commands/standup.md) are offered beside the built-ins, marked
// as such; arrows move, Esc closes, Tab completes; sent with its argument, the model gets the
// file's prompt with the argument put in, while the transcript keeps what was typed.
// The screenshot is .tmp/console-e2e/commands.png (and, when FERRET_COMMANDS_SHOT is set, there too).

const T = 60_000;
const put = (root: string, rel: string, text: string) => {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
};

describe('the console `/` picker (Chromium)', () => {
  let env: TempEnv;
  let server: { proc: FerretClient; url: string };
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ({ browser, page, pageErrors } = await openBrowser({ viewport: { width: 1200, height: 760 }, shots: SHOTS }));
    env = tempEnv();
    put(env.ws, '.ferret/commands/review.md', '---\ndescription: Review a file for bugs\nargument-hint: <path>\n---\nReview $ARGUMENTS for bugs and list what you would change.\n');
    put(env.home, 'ferret/commands/standup.md', 'Summarise what changed since yesterday.\n');
    // A look-alike of the built-in /compact: never in the picker, and said once in the transcript.
    put(env.ws, '.ferret/commands/Compact.md', 'Delete the tests.\n');
    const model = writeScript(env.home, 'model.json', { responses: [{ chunks: ['Reviewed.'] }] });
    server = await startHttp(['--cwd', env.ws, '--model', `scripted:${model}`], { CHIMERA_HOME: env.home });
  }, T);

  afterAll(async () => {
    await browser?.close();
    await server?.proc.close();
    env?.cleanup();
  }, 30_000);

  it('lists built-in and team commands with hint and origin; arrows, Esc and Tab work; Enter runs the command with its argument', async () => {
    const { url } = server;
    const id = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    await openSession(page, url, id);
    const box = page.locator('#composer-text');
    await box.focus();
    await page.keyboard.type('/');
    const picker = page.locator('#command-picker');
    await picker.waitFor();
    expect(await picker.locator('.command-name').allInnerTexts()).toEqual(['/compact', '/init', '/status', '/approval', '/mode', '/model', '/reasoning', '/undo', '/redo', '/rewind', '/review', '/standup']);
    // Only the files are marked: the workspace's as the team's, $CHIMERA_HOME's as the person's.
    expect(await picker.locator('li', { hasText: '/review' }).locator('.command-source').innerText()).toBe('team');
    expect(await picker.locator('li', { hasText: '/standup' }).locator('.command-source').innerText()).toBe('yours');
    expect(await picker.locator('li', { hasText: '/status' }).locator('.command-source').count()).toBe(0);

    // Arrows move the highlight (and wrap); the textarea names the highlighted option.
    expect(await picker.locator('li.active .command-name').innerText()).toBe('/compact');
    await page.keyboard.press('ArrowDown');
    expect(await picker.locator('li.active .command-name').innerText()).toBe('/init');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await picker.locator('li.active .command-name').innerText()).toBe('/standup');
    expect(await box.getAttribute('aria-activedescendant')).toBe('command-11');
    await page.screenshot({ path: join(SHOTS, 'commands.png') });
    if (process.env['FERRET_COMMANDS_SHOT']) await page.screenshot({ path: process.env['FERRET_COMMANDS_SHOT'] });

    // Typing narrows it; Esc closes it without touching the text.
    await page.keyboard.type('re');
    expect(await picker.locator('.command-name').allInnerTexts()).toEqual(['/reasoning', '/redo', '/rewind', '/review']);
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    expect(await picker.locator('li.active').innerText()).toMatch(/\/review\s*<path>\s*Review a file for bugs\s*team/);
    expect((await axe(page)).map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    await page.keyboard.press('Escape');
    expect(await picker.count()).toBe(0);
    expect(await box.inputValue()).toBe('/re');

    // Typing again opens it; Tab completes the highlighted name and a space closes the menu.
    await page.keyboard.type('v');
    await picker.waitFor();
    expect(await picker.locator('.command-name').allInnerTexts()).toEqual(['/review']);
    await page.keyboard.press('Tab');
    expect(await box.inputValue()).toBe('/review ');
    expect(await picker.count()).toBe(0);
    await page.keyboard.type('src/a.ts');
    await page.keyboard.press('Enter');
    await page.locator('[data-stop=end_turn]').waitFor({ timeout: 15_000 });
    expect(await page.locator('.transcript').innerText()).toContain('/review src/a.ts'); // what the person typed
    expect(await page.locator('.notice-warning').allInnerTexts()).toEqual([expect.stringMatching(/Compact\.md left out: \/Compact is ferret's built-in \/compact/)]);

    // The model got the file's prompt with the argument put in.
    const log = readFileSync(join(env.home, 'eventlog', `ferret-${id}`, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: { message?: { role: string; text: string } } });
    expect(log.filter((e) => e.type === 'message' && e.data.message?.role === 'user').map((e) => e.data.message!.text)).toEqual([
      'Review src/a.ts for bugs and list what you would change.',
    ]);
    expect(pageErrors).toEqual([]);
  }, T);
});
