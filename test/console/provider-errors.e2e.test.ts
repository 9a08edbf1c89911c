import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as A from '../fakes/anthropic.js';
import { FakeServer, gate } from '../fakes/fake-server.js';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { SseClient } from '../support/sse.mjs';
import { tempEnv, type TempEnv } from '../support/temp.mjs';
import { until } from '../support/until.js';
import type { Page } from './support/browser.js';
import { CONSOLE_SHOTS, openBrowser, openSession, type OpenedBrowser } from './support/open.js';

// A real vendor's answers in the web console, in Chromium (issue 27, items 7 and 12). The model is
// anthropic/claude-sonnet-4-5 against a fake Messages API on loopback that streams what
// api.anthropic.com streams: extended thinking then text, and a 529 "Overloaded". The person sees
// the thinking as a folded block while it streams; a failed turn says its error once, offers
// Retry, and the context meter keeps its last good figure. An SSE reader of the same session sees
// the same. Screenshots: .tmp/console-e2e/thinking.png, overloaded.png.

const T = 60_000;
const THINKING = ['The user asks which ', 'option is cheaper. ', 'Option B costs less over a year.'];
const OVERLOADED = { status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };

/** What the context cell of the usage panel says, and the meter's value (none when it shows no meter). */
const meter = (page: Page) =>
  page.evaluate<{ text: string; value: number | null }>(
    "(() => { const dd = [...document.querySelectorAll('.usage dt')].find((d) => d.textContent === 'Context').nextElementSibling; const m = dd.querySelector('meter'); return { text: dd.textContent.trim(), value: m ? m.value : null }; })()",
  );
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('thinking, a 529 and Retry in the web console, from a fake Anthropic API (Chromium)', () => {
  let env: TempEnv;
  let fake: FakeServer;
  let server: { proc: FerretClient; url: string };
  let b: OpenedBrowser;
  let sid: string;
  let sse: SseClient;

  beforeAll(async () => {
    b = await openBrowser({ shots: CONSOLE_SHOTS });
    env = tempEnv();
    fake = await new FakeServer().start();
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    // Two attempts in all: one "retrying" notice, then the turn fails (FERRET_RETRY_TIME_SCALE shortens the wait).
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { anthropic: { type: 'anthropic', baseURL: `${fake.url}/v1` } }, retry: { attempts: 2 } }));
    server = await startHttp(['--cwd', env.ws, '--model', 'anthropic/claude-sonnet-4-5', '--approval', 'full-auto'], {
      CHIMERA_HOME: env.home,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      FERRET_RETRY_TIME_SCALE: '0.01',
    });
    sid = (await api(server.url, 'POST', '/session', {})).body['sessionId'] as string;
    sse = new SseClient(server.url, `/session/${sid}/events`);
    await sse.opened;
  }, T);

  afterAll(async () => {
    sse?.close();
    await b?.browser.close();
    await server?.proc.close();
    await fake?.close();
    env?.cleanup();
  }, 30_000);

  it('shows the thinking as a folded block while it streams, its whole text when unfolded, then the answer', async () => {
    const thinking = gate();
    const answering = gate();
    fake.reply({
      steps: [
        A.messageStart({ input: 12_000 }),
        A.thinkingStart(0), A.thinkingDelta(0, THINKING[0]!), A.thinkingDelta(0, THINKING[1]!), { gate: thinking },
        A.thinkingDelta(0, THINKING[2]!), A.signatureDelta(0, 'SIG-1'), A.blockStop(0),
        A.textStart(1), A.textDelta(1, 'Option **B** is '), { gate: answering }, A.textDelta(1, 'cheaper.'), A.blockStop(1),
        A.messageDelta('end_turn', 300), A.messageStop,
      ],
    });
    const { page } = b;
    await openSession(page, server.url, sid);
    await page.locator('#composer-text').fill('Which option is cheaper?');
    await page.keyboard.press('Enter');

    // Mid-thought: a closed "Thinking" block is there, its text streamed so far inside, not shown.
    const block = page.locator('details.thought');
    await block.waitFor({ state: 'attached', timeout: 15_000 });
    expect(thinking.opened).toBe(false);
    expect(await page.locator('main.session').getAttribute('data-running')).toBe('true');
    expect(await block.locator('summary').innerText()).toBe('Thinking');
    expect(await block.getAttribute('open')).toBeNull();
    expect(await block.locator('.thought-text').isVisible()).toBe(false);
    await until('the first thinking deltas', async () => (await block.locator('.thought-text').textContent()) === THINKING[0]! + THINKING[1]!);
    expect(await page.locator('.msg-agent').count()).toBe(0); // no answer yet: the thinking is what shows progress
    thinking.open();

    // The answer streams below the block, which stays one block and stays folded.
    await page.locator('.msg-agent', { hasText: 'Option B is' }).waitFor({ timeout: 10_000 });
    expect(await page.locator('details.thought').count()).toBe(1);
    expect(await block.getAttribute('open')).toBeNull();
    answering.open();
    await page.locator('[data-stop=end_turn]').waitFor({ timeout: 10_000 });

    // Unfolded by the person: the whole thinking, in order, before the answer.
    await block.locator('summary').click();
    expect(await block.getAttribute('open')).not.toBeNull();
    expect(await block.locator('.thought-text').innerText()).toBe(THINKING.join(''));
    const order = await page.evaluate<string[]>(
      "[...document.querySelectorAll('.transcript > *')].map((e) => e.matches('.msg-user') ? 'prompt' : e.matches('.msg-agent') ? 'answer' : e.className.split(' ')[0])",
    );
    expect(order).toEqual(['prompt', 'thought', 'answer', 'turn-end']);
    expect(await page.locator('.msg-agent').innerText()).toContain('Option B is cheaper.');
    await page.screenshot({ path: join(CONSOLE_SHOTS, 'thinking.png') });

    // An HTTP client on plain SSE saw the same thinking, as thought chunks before the text.
    await sse.waitFor((fs) => fs.some((f) => f.event === 'loop_event' && f.data['kind'] === 'turn_end'));
    const kinds = sse.frames.flatMap((f) => (f.event === 'loop_event' ? [f.data] : []));
    expect(kinds.filter((d) => d['kind'] === 'agent_thought_chunk').map((d) => d['text']).join('')).toBe(THINKING.join(''));
    const firstText = kinds.findIndex((d) => d['kind'] === 'agent_message_chunk');
    expect(kinds.findIndex((d) => d['kind'] === 'agent_thought_chunk')).toBeLessThan(firstText);
    expect(b.pageErrors).toEqual([]);
  }, T);

  it('a 529: the error is shown once, the meter keeps its last figure, and Retry sends the message again and the turn completes', async () => {
    const { page } = b;
    const before = await meter(page);
    expect(before.value).toBe(12_300); // the last call's prompt and reply
    expect(before.text).toBe('6% of 200k');
    const requests = fake.requests.length;
    fake.reply(OVERLOADED, OVERLOADED);

    await page.locator('#composer-text').fill('Now compare option C.');
    await page.keyboard.press('Enter');
    const end = page.locator('[data-stop=error]');
    await end.waitFor({ timeout: 15_000 });
    expect(fake.requests.length - requests).toBe(2); // the first try and one retry, both 529

    // Said once: on the end line, with Retry beside it; the retry notice before it is a warning.
    const transcript = await page.locator('.transcript').innerText();
    expect(count(transcript, 'Overloaded')).toBe(1);
    expect(await end.innerText()).toContain('provider error (HTTP 529): Overloaded');
    expect(await page.locator('.notice-error').count()).toBe(0);
    const warnings = await page.locator('.notice-warning').allInnerTexts();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: anthropic\/claude-sonnet-4-5: HTTP 529; retrying in [\d.]+ s \(attempt 2 of 2\)$/);
    expect(await page.locator('[role=alert]').count()).toBe(0); // no banner saying it again
    const retry = end.locator('button.retry');
    expect(await retry.isVisible()).toBe(true);
    expect(await retry.innerText()).toBe('Retry');
    expect(await meter(page)).toEqual(before);
    await page.screenshot({ path: join(CONSOLE_SHOTS, 'overloaded.png') });

    // A reload replays the session: still said once, the same meter, Retry still offered.
    await page.reload();
    await page.locator('[data-connection=live]').waitFor({ timeout: 10_000 });
    await page.locator('[data-stop=error] button.retry').waitFor({ timeout: 10_000 });
    expect(count(await page.locator('.transcript').innerText(), 'Overloaded')).toBe(1);
    expect(await meter(page)).toEqual(before);

    // Retry: the same message goes to the model again, and this time the answer comes.
    fake.reply({ steps: [A.messageStart({ input: 14_000 }), A.textStart(0), A.textDelta(0, 'Option C is the cheapest.'), A.blockStop(0), A.messageDelta('end_turn', 20), A.messageStop] });
    await page.locator('[data-stop=error] button.retry').click();
    await page.locator('[data-stop=end_turn]').nth(1).waitFor({ timeout: 15_000 });
    expect(fake.requests.length - requests).toBe(3);
    const sent = fake.requests.at(-1)!.body.messages as { role: string; content: string | { type: string; text?: string }[] }[];
    const last = sent.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('Now compare option C.');
    expect(await page.locator('.msg-agent').last().innerText()).toContain('Option C is the cheapest.');
    expect(await page.locator('.msg-user .bubble').allInnerTexts()).toEqual(['Which option is cheaper?', 'Now compare option C.', 'Now compare option C.']);
    expect(await meter(page)).toEqual({ value: 14_020, text: '7% of 200k' });

    // Over SSE: the failed turn's error is said by one error notice and its turn_end, and no frame comes twice.
    const loop = sse.frames.flatMap((f) => (f.event === 'loop_event' ? [f.data] : []));
    expect(loop.filter((d) => d['kind'] === 'turn_end' && d['stop_reason'] === 'error')).toHaveLength(1);
    expect(loop.filter((d) => d['kind'] === 'notice' && d['level'] === 'error')).toHaveLength(1);
    expect(new Set(sse.frames.map((f) => f.id).filter(Boolean)).size).toBe(sse.frames.filter((f) => f.id).length);
    expect(b.pageErrors).toEqual([]);
  }, T);

  it('an overloaded_error inside the stream, after some text: retried, then said once in words, the text kept once; Retry completes', async () => {
    const { page } = b;
    const before = await meter(page);
    const requests = fake.requests.length;
    const cut = { steps: [A.messageStart({ input: 15_000 }), A.textStart(0), A.textDelta(0, 'Comparing all three: '), A.errorEvent('overloaded_error', 'Overloaded')] };
    fake.reply(cut, cut);
    await page.locator('#composer-text').fill('And option D?');
    await page.keyboard.press('Enter');
    await page.locator('[data-stop=error]').nth(1).waitFor({ timeout: 15_000 });
    expect(fake.requests.length - requests).toBe(2);
    const end = page.locator('[data-stop=error]').nth(1);
    expect(await end.innerText()).toContain('provider error (HTTP 529): Overloaded (gave up after 2 attempts). The partial reply is kept');
    const transcript = await page.locator('.transcript').innerText();
    expect(transcript).not.toContain('[object Object]');
    expect(count(transcript, 'Comparing all three:')).toBe(1); // the retried attempt's same text is not shown again
    expect(count(transcript, 'Overloaded')).toBe(2); // this turn's error once, and the earlier turn's
    expect(await meter(page)).toEqual(before);

    fake.reply({ steps: [A.messageStart({ input: 16_000 }), A.textStart(0), A.textDelta(0, 'D costs the most.'), A.blockStop(0), A.messageDelta('end_turn', 10), A.messageStop] });
    await end.locator('button.retry').click();
    await page.locator('.msg-agent', { hasText: 'D costs the most.' }).waitFor({ timeout: 15_000 });
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages)).toContain('And option D?');
    expect(b.pageErrors).toEqual([]);
  }, T);
});
