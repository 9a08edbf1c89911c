import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import { axe, type Browser, type Page } from './support/browser.js';
import { CONSOLE_SHOTS as SHOTS, openBrowser, openSession } from './support/open.js';

// The model's plan in the web console, in Chromium: a scripted model writes a three-step plan
// and ticks the steps off one call at a time (slowly enough to watch). The console shows one
// checklist that changes in place (the same DOM node throughout), and a reload replays it.
// The final screenshot is .tmp/console-e2e/plan.png (and, when FERRET_PLAN_SHOT is set, there too).

const T = 60_000;
const STEPS = ['Find where the config is parsed', 'Fix the off-by-one in the parser', 'Run the parser tests'];
const planAt = (done: number) =>
  STEPS.map((content, i) => ({ content, status: (i < done ? 'completed' : i === done ? 'in_progress' : 'pending'), ...(i === 1 ? { priority: 'high' } : {}) }));
const MODEL = {
  responses: [
    ...[0, 1, 2, 3].map((done) => ({ chunks: [`Step ${done}: `, 'updating the plan.'], delayMs: 700, toolCalls: [{ name: 'update_plan', arguments: { entries: planAt(done) } }] })),
    { chunks: ['All three steps are done.'] },
  ],
};

/** The checklist as the page shows it: one [status, text] per step, for every plan block. */
const checklists = (page: Page) =>
  page.evaluate<[string, string][][]>(
    "[...document.querySelectorAll('.plan')].map((p) => [...p.querySelectorAll('li')].map((li) => [li.getAttribute('data-status') ?? '', li.querySelector('.plan-text')?.textContent ?? '']))",
  );

describe('the plan in the web console (Chromium)', () => {
  let env: TempEnv;
  let server: { proc: FerretClient; url: string };
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ({ browser, page, pageErrors } = await openBrowser({ viewport: { width: 1200, height: 760 }, shots: SHOTS }));
    env = tempEnv();
    const model = writeScript(env.home, 'model.json', MODEL);
    server = await startHttp(['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'suggest'], { CHIMERA_HOME: env.home });
  }, T);

  afterAll(async () => {
    await browser?.close();
    await server?.proc.close();
    env?.cleanup();
  }, 30_000);

  it('one checklist that ticks off in place as the model marks each step, the same after a reload', async () => {
    const { url } = server;
    const sid = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    await openSession(page, url, sid);
    expect((await api(url, 'POST', `/session/${sid}/message?wait=false`, { text: 'fix the parser bug' })).status).toBe(202);

    // The first plan: step one in progress. Mark its node, to see that later plans redraw this one.
    const plan = page.locator('.plan');
    await plan.locator('li[data-status=in_progress]', { hasText: STEPS[0]! }).waitFor({ timeout: 10_000 });
    await page.evaluate<void>("document.querySelector('.plan').setAttribute('data-first', 'yes')");
    expect(await checklists(page)).toEqual([STEPS.map((s, i) => [i === 0 ? 'in_progress' : 'pending', s])]);
    expect(await plan.locator('.plan-count').innerText()).toBe('0 of 3 done');

    // Each later plan: still one block, the same node, the next step in progress.
    for (const done of [1, 2]) {
      await plan.locator('li[data-status=in_progress]', { hasText: STEPS[done]! }).waitFor({ timeout: 10_000 });
      expect(await checklists(page)).toEqual([STEPS.map((s, i) => [i < done ? 'completed' : i === done ? 'in_progress' : 'pending', s])]);
      expect(await plan.getAttribute('data-first')).toBe('yes');
      expect(await plan.locator('.plan-count').innerText()).toBe(`${done} of 3 done`);
      if (done === 1) await page.screenshot({ path: join(SHOTS, 'plan-in-progress.png') });
    }
    await page.locator('[data-stop=end_turn]').waitFor({ timeout: 15_000 });
    expect(await checklists(page)).toEqual([STEPS.map((s) => ['completed', s])]);
    expect(await plan.getAttribute('data-first')).toBe('yes');
    expect(await plan.locator('.plan-count').innerText()).toBe('3 of 3 done');
    expect(await plan.locator('.plan-priority').allInnerTexts()).toEqual(['high']);
    // Four update_plan cards, one checklist.
    expect(await page.locator('.tool').count()).toBe(4);
    expect(await page.locator('.plan').count()).toBe(1);
    await plan.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: join(SHOTS, 'plan.png') });
    if (process.env['FERRET_PLAN_SHOT']) await page.screenshot({ path: process.env['FERRET_PLAN_SHOT'] });
    const violations = (await axe(page)).filter((v) => v.nodes.some((n) => n.target.some((t) => t.includes('plan'))));
    expect(violations).toEqual([]);

    // A reload replays the session: the same single checklist, finished.
    await page.reload();
    await page.locator('.plan li[data-status=completed]', { hasText: STEPS[2]! }).waitFor({ timeout: 10_000 });
    expect(await checklists(page)).toEqual([STEPS.map((s) => ['completed', s])]);
    expect(pageErrors).toEqual([]);
  }, T);
});
