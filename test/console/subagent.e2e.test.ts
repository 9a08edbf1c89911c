import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import type { Browser, Page } from './support/browser.js';
import { CONSOLE_SHOTS as SHOTS, openBrowser, openSession } from './support/open.js';

// A task call in the web console, in Chromium: the subagent's grep and read show as cards nested
// inside the task's card (not in the transcript), while it works and after a reload.
// The screenshot is .tmp/console-e2e/subagent.png.

const T = 60_000;
const MODEL = {
  responses: [
    { chunks: ['Delegating the search.'], toolCalls: [{ name: 'task', arguments: { description: 'find parseLine', prompt: 'Where is parseLine defined?' } }] },
    { chunks: ['It is in parser.ts.'] },
  ],
  subagents: {
    'find parseLine': [
      { chunks: ['Searching for it.'], delayMs: 300, toolCalls: [{ name: 'grep', arguments: { pattern: 'function parseLine' } }] },
      { toolCalls: [{ name: 'read_file', arguments: { path: 'parser.ts' } }] },
      { chunks: ['parseLine is defined at parser.ts:1.'] },
    ],
  },
};

/** Each top-level card's tool, and the tools of the cards nested in it. */
const cards = (page: Page) =>
  page.evaluate<[string, string[]][]>(
    "[...document.querySelectorAll('.tool:not(.subagent .tool)')].map((t) => [t.querySelector('.tool-name').textContent, [...t.querySelectorAll('.subagent .tool .tool-name')].map((n) => n.textContent)])",
  );

describe('a subagent in the web console (Chromium)', () => {
  let env: TempEnv;
  let server: { proc: FerretClient; url: string };
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ({ browser, page, pageErrors } = await openBrowser({ viewport: { width: 1200, height: 760 }, shots: SHOTS }));
    env = tempEnv();
    writeFileSync(join(env.ws, 'parser.ts'), 'export function parseLine(s: string) {\n  return s.trim();\n}\n');
    const model = writeScript(env.home, 'model.json', MODEL);
    server = await startHttp(['--cwd', env.ws, '--model', `scripted:${model}`], { CHIMERA_HOME: env.home });
  }, T);

  afterAll(async () => {
    await browser?.close();
    await server?.proc.close();
    env?.cleanup();
  }, 30_000);

  it("nests the child's calls in the task's card, the same after a reload", async () => {
    const { url } = server;
    const sid = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    await openSession(page, url, sid);
    expect((await api(url, 'POST', `/session/${sid}/message?wait=false`, { text: 'where is parseLine?' })).status).toBe(202);

    await page.locator('[data-stop=end_turn]').waitFor({ timeout: 15_000 });
    expect(await cards(page)).toEqual([['task', ['grep', 'read_file']]]);
    const task = page.locator('.tool[data-tool-id=call_1_1]');
    expect(await task.getAttribute('data-status')).toBe('completed');
    expect(await task.locator('.subagent .tool[data-status=completed]').count()).toBe(2);
    await task.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: join(SHOTS, 'subagent.png') });

    await page.reload();
    await page.locator('[data-stop=end_turn]').waitFor({ timeout: 10_000 });
    expect(await cards(page)).toEqual([['task', ['grep', 'read_file']]]);
    expect(pageErrors).toEqual([]);
  }, T);
});
