import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './support/e2e-tools.js';
import { OpenedWorkbench, until } from './support/open-window.js';
import type { Workbench } from './support/workbench.js';

// Window reloads without a kept server, and two windows on one folder, in real VS Code
// (code-server in Chromium) against the built chimera with a scripted model.

const SHOTS = join(ROOT, '.tmp', 'vscode-e2e');
const shot = (wb: Workbench, name: string) => wb.screenshot(join(SHOTS, name));

describe('a window reload with chimera.keepServerOnReload off', () => {
  let o: OpenedWorkbench;
  let sessionId: string;

  beforeAll(async () => {
    o = await OpenedWorkbench.open({
      prefix: 'reload-stdio',
      settings: { 'chimera.keepServerOnReload': false },
      model: {
        responses: [
          { chunks: ['Writing a todo.'], toolCalls: [{ name: 'write_file', arguments: { path: 'todo.txt', content: 'ship it\n' } }] },
          { chunks: ['The todo is in place.'] },
        ],
      },
    });
  }, 240_000);
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') {
      o.failed = true;
      return shot(o.wb, `failed-stdio-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`).catch(() => undefined);
    }
  });
  afterAll(() => o?.close(), 30_000);

  it('an edit left waiting at a reload: the session comes back with the edit offered, its diff, and Accept writes it', async () => {
    const wb = o.wb;
    const todo = join(o.ws, 'todo.txt');
    await wb.runCommand('Chimera: Start Session');
    const body = wb.chat.locator('body[data-session]:not([data-session=""])');
    await body.waitFor({ state: 'attached', timeout: 30_000 });
    sessionId = (await body.getAttribute('data-session'))!;
    expect(o.serverState()).toBeUndefined(); // a stdio child: nothing detached
    await wb.send('write a todo');
    await wb.chat.locator('#review-bar .review-row[data-path$="/todo.txt"]').waitFor({ timeout: 15_000 });
    expect(await wb.chat.locator('#review-bar button[data-accept-all="turn"]').count()).toBe(1); // the turn runs: "this turn" means something

    await wb.page.reload({ timeout: 60_000 });
    await wb.ready();
    // The session the window showed is shown again, unasked, with its history.
    await wb.chat.locator(`body[data-session="${sessionId}"]`).waitFor({ state: 'attached', timeout: 30_000 });
    await wb.chat.locator('.entry.user', { hasText: 'write a todo' }).waitFor({ timeout: 15_000 });
    await wb.idle(15_000); // the turn ended with the old server
    // The edit is offered again: said once, in a person's words; nothing written yet.
    const row = wb.chat.locator('#review-bar .review-row[data-path$="/todo.txt"]');
    await row.waitFor({ timeout: 15_000 });
    await wb.chat.locator('#review-bar .review-orphans').waitFor();
    expect(existsSync(todo)).toBe(false);
    // The turn is over: no "Accept all this turn".
    expect(await wb.chat.locator('#review-bar button[data-accept-all="turn"]').count()).toBe(0);
    // The card says what became of the edit in a person's words, and offers it too.
    const card = wb.card('Write todo.txt');
    expect(await card.locator('.tool-note').innerText()).toMatch(/^Not written yet: the turn ended \(the window closed or reloaded\) while this edit waited for your review/);
    expect(await card.innerText()).not.toMatch(/client closed|connection|the user|the person|do not retry/i);
    await card.locator('button[data-action="accept"]').waitFor();
    await shot(wb, 'reload-stdio-offered.png');
    // Review opens its diff.
    await row.locator('button[data-action="review"]').click();
    await wb.page.locator('.editor-group-container.active .monaco-diff-editor .modified', { hasText: 'ship it' }).waitFor({ timeout: 15_000 });
    // Accept writes it.
    await row.locator('button[data-action="accept"]').click();
    await until('todo.txt written', () => existsSync(todo) && readFileSync(todo, 'utf8') === 'ship it\n', 15_000);
    await wb.chat.locator('#review-bar .review-row').waitFor({ state: 'detached', timeout: 10_000 });
    await card.locator('.tool-note', { hasText: 'you accepted the edit afterwards, so the file has it' }).waitFor({ timeout: 5_000 });
    // The session goes on here.
    await wb.send('what now');
    await wb.chat.locator('.entry.agent', { hasText: 'The todo is in place.' }).waitFor({ timeout: 20_000 });
    await shot(wb, 'reload-stdio-accepted.png');
    expect(o.browserErrors).toEqual([]);
  }, 180_000);
});

describe('two windows on one folder (the detached server they share)', () => {
  let o: OpenedWorkbench;
  let a: Workbench;
  let b: Workbench;
  let sessionId: string;
  const reviewRows = (wb: Workbench) => wb.chat.locator('#review-bar .review-row');

  beforeAll(async () => {
    o = await OpenedWorkbench.open({
      prefix: 'two-windows',
      model: {
        responses: [
          { chunks: ['Writing a todo.'], toolCalls: [{ name: 'write_file', arguments: { path: 'todo.txt', content: 'ship it\n' } }] },
          { chunks: ['Checking it.'], toolCalls: [{ name: 'bash', arguments: { command: 'cat todo.txt' } }] },
          { chunks: ['Done: todo.txt says ship it.'] },
          { chunks: ['Hello, second window.'] },
          { chunks: ['Writing another.'], toolCalls: [{ name: 'write_file', arguments: { path: 'later.txt', content: 'later\n' } }] },
          { chunks: ['Done again.'] },
        ],
      },
    });
    a = o.wb;
  }, 240_000);
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') {
      o.failed = true;
      const name = ctx.task.name.slice(0, 30).replace(/\W+/g, '-');
      return Promise.all(o.windows.map((wb, i) => shot(wb, `failed-windows-${i}-${name}.png`).catch(() => undefined)));
    }
  });
  afterAll(() => o?.close(), 30_000);

  it('a second window shows the session the first one shows, without taking its pending edit; Accept in the first still works', async () => {
    await a.runCommand('Chimera: Start Session');
    const body = a.chat.locator('body[data-session]:not([data-session=""])');
    await body.waitFor({ state: 'attached', timeout: 30_000 });
    sessionId = (await body.getAttribute('data-session'))!;
    await a.send('write a todo');
    await a.chat.locator('#review-bar .review-row[data-path$="/todo.txt"]').waitFor({ timeout: 15_000 });

    b = await o.newWindow();
    // The second window shows the same session, the turn running, as a viewer: the edit is the first window's to review.
    await b.chat.locator(`body[data-session="${sessionId}"]`).waitFor({ state: 'attached', timeout: 30_000 });
    await b.chat.locator('.entry.user', { hasText: 'write a todo' }).waitFor({ timeout: 15_000 });
    await b.chat.locator('body[data-busy="true"]').waitFor({ state: 'attached', timeout: 15_000 });
    expect(await reviewRows(b).count()).toBe(0);
    // Its card says where the edit waits, not just "running".
    await b.card('Write todo.txt').locator('.badge', { hasText: 'waiting for review in another window' }).waitFor({ timeout: 10_000 });
    await shot(b, 'two-windows-second.png');

    // The first window was not cut off: its Accept answers the write and the turn goes on, seen in both.
    expect(existsSync(join(o.ws, 'todo.txt'))).toBe(false);
    await a.chat.locator('#review-bar .review-row[data-path$="/todo.txt"] button[data-action="accept"]').click();
    await until('todo.txt written', () => existsSync(join(o.ws, 'todo.txt')) && readFileSync(join(o.ws, 'todo.txt'), 'utf8') === 'ship it\n', 30_000);
    for (const wb of [a, b]) await wb.chat.locator('.entry.agent', { hasText: 'Done: todo.txt says ship it.' }).waitFor({ timeout: 20_000 });
    await b.card('Write todo.txt').locator('.badge', { hasText: 'waiting for review in another window' }).waitFor({ state: 'detached', timeout: 10_000 });
    expect(await a.chat.locator('.tool-card[data-status="completed"]', { hasText: 'cat todo.txt' }).locator('.tool-output').innerText()).toContain('ship it');
    await a.idle();
    await b.idle();
  }, 150_000);

  it('a prompt sent from the second window appears in the first, labelled as another editor', async () => {
    await b.send('hello from the second window');
    await b.chat.locator('.entry.agent', { hasText: 'Hello, second window.' }).waitFor({ timeout: 20_000 });
    const prompt = a.chat.locator('.entry.user', { hasText: 'hello from the second window' });
    await prompt.waitFor({ timeout: 15_000 });
    expect(await prompt.locator('.from').innerText()).toBe('from another editor');
    await a.chat.locator('.entry.agent', { hasText: 'Hello, second window.' }).waitFor({ timeout: 15_000 });
    await shot(a, 'two-windows-first.png');
    await a.idle();
    await b.idle();
  }, 60_000);

  it('the first window reloaded mid-turn continues itself, not the second: its edit is still the one the turn waits on', async () => {
    await a.send('write another');
    const row = a.chat.locator('#review-bar .review-row[data-path$="/later.txt"]');
    await row.waitFor({ timeout: 15_000 });
    await a.page.reload({ timeout: 60_000 });
    await a.ready();
    await a.chat.locator(`body[data-session="${sessionId}"]`).waitFor({ state: 'attached', timeout: 30_000 });
    await a.chat.locator('body[data-busy="true"]').waitFor({ state: 'attached', timeout: 15_000 });
    await row.waitFor({ timeout: 15_000 });
    expect(await a.chat.locator('#review-bar .review-orphans').count()).toBe(0); // the turn waits on it
    expect(await reviewRows(b).count()).toBe(0);
    await row.locator('button[data-action="accept"]').click();
    await until('later.txt written', () => existsSync(join(o.ws, 'later.txt')), 30_000);
    // Both windows see the turn end; the second never lost its connection.
    for (const wb of [a, b]) await wb.chat.locator('.entry.agent', { hasText: 'Done again.' }).waitFor({ timeout: 20_000 });
    expect(await b.chat.locator('body').getAttribute('data-http')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(o.browserErrors).toEqual([]);
  }, 150_000);
});
