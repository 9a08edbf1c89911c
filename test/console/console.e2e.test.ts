import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import { axe, type AxeViolation, type Browser, type BrowserContext, type Page } from './support/browser.js';
import { startHostileSite, type HostileResults } from './support/hostile-page.js';
import { CONSOLE_SHOTS as SHOTS, openBrowser } from './support/open.js';
import { CuttableProxy } from './support/proxy.js';
import { MODEL, writeWorkspace } from './support/scenario.js';

// The web console, built into the real CLI (`npm run build`), served by `chimera ferret serve
// --http` with a token and the scripted model, driven in Debian's chromium the way a person uses
// it, while an editor (ACP on stdio) works on the same session. The browser reaches the server
// through a TCP pass-through on [::1] that the test can cut. Screenshots land in .tmp/console-e2e/.

const TOKEN = 'console-e2e-token-0123456789abcdef';
const T = 60_000;

const until = async (what: string, pred: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** Waits until the page's transcript reads `expected` (a replay); on time-out says what differs. */
async function sameTranscript(page: Page, expected: string, timeoutMs = 10_000): Promise<void> {
  let got = '';
  try {
    await until('the replayed transcript', async () => (got = await page.locator('.transcript').innerText()) === expected, timeoutMs);
  } catch (e) {
    const a = expected.split('\n');
    const b = got.split('\n');
    const i = a.findIndex((l, k) => l !== b[k]);
    throw new Error(`${(e as Error).message}: first difference at line ${i}: expected ${JSON.stringify(a.slice(i, i + 3))}, got ${JSON.stringify(b.slice(i, i + 3))}`);
  }
}

/** Processes whose command line contains `text` (to see that a stopped command is gone). */
const processesWith = (text: string): number =>
  readdirSync('/proc').filter((p) => {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(text);
    } catch {
      return false;
    }
  }).length;

describe('the web console in Chromium', () => {
  let env: TempEnv;
  let acp: FerretClient;
  let url: string;
  let port: string;
  let consoleUrl: string;
  let proxy: CuttableProxy;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let tab2: Page;
  let sessionId: string;
  const pageErrors: string[] = [];
  const requested: string[] = [];
  const a11y: { page: string; violations: AxeViolation[] }[] = [];
  const watch = (p: Page) => {
    p.on('pageerror', (e) => pageErrors.push(e.message));
    p.on('request', (r) => requested.push(r.url()));
  };
  const audit = async (p: Page, name: string) => a11y.push({ page: name, violations: await axe(p) });
  const bot = (method: string, path: string, body?: unknown) => api(url, method, path, body, TOKEN);

  beforeAll(async () => {
    ({ browser, ctx, page } = await openBrowser({ viewport: { width: 1400, height: 900 }, shots: SHOTS }));
    watch(page);
    env = tempEnv();
    writeWorkspace(env.ws);
    const model = writeScript(env.home, 'model.json', MODEL);
    ({ proc: acp, url } = await startHttp(['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'auto'], { CHIMERA_HOME: env.home, FERRET_SERVER_TOKEN: TOKEN }));
    port = new URL(url).port;
    proxy = await CuttableProxy.start(Number(port));
    consoleUrl = `http://[::1]:${port}/`;
  }, T);

  let failed = false;
  afterEach(async (c) => {
    if (c.task.result?.state !== 'fail') return;
    failed = true;
    await page?.screenshot({ path: join(SHOTS, `failed-${c.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`) }).catch(() => undefined);
  });

  afterAll(async () => {
    writeFileSync(join(SHOTS, 'axe.json'), JSON.stringify(a11y, null, 2));
    await browser?.close();
    await proxy?.close();
    await acp?.close();
    if (!failed) env?.cleanup();
    else if (env) console.error(`kept ${env.home} and ${env.ws} for inspection; server stderr:\n${acp?.stderr.slice(-4000)}`);
  }, 30_000);

  it('prints the console URL and serves the console with a strict page policy', async () => {
    expect(acp.stderr).toContain(`web console at http://127.0.0.1:${port}/`);
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(await res.text()).toContain('/assets/console.js');
    // The page and its files need no token; the API does.
    expect((await fetch(`${url}/assets/console.js`)).status).toBe(200);
    expect((await fetch(`${url}/session`)).status).toBe(401);
  });

  it('logs in with the token: an HttpOnly, SameSite=Strict cookie; the token never in a URL or in storage', async () => {
    await page.goto(consoleUrl);
    await page.locator('input[name=token]').waitFor();
    await audit(page, 'login');
    await page.locator('input[name=token]').fill('not-the-token');
    await page.keyboard.press('Enter');
    await page.locator('[role=alert]', { hasText: 'wrong token' }).waitFor();
    await page.locator('input[name=token]').fill(TOKEN);
    await page.keyboard.press('Enter');
    await page.locator('h2', { hasText: 'New session' }).waitFor();

    const cookies = await ctx.cookies();
    expect(cookies.map((c) => c.name)).toEqual([`ferret_session_${port}`]);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.toContain(TOKEN);
    const stored = await page.evaluate<string>('JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie, location.href])');
    expect(stored).not.toContain(TOKEN);
    expect(stored).not.toContain('ferret_session'); // HttpOnly: the page's scripts never see it
    expect(requested.filter((u) => u.includes(TOKEN))).toEqual([]);
  }, T);

  it('lists sessions with their state and creates one by keyboard, with the models the ACP picker offers', async () => {
    const byBot = (await bot('POST', '/session', { approval: 'suggest' })).body['sessionId'] as string;
    await acp.call('initialize', {});
    const byEditor = (await acp.call('session/new', { mode: 'plan' }))['sessionId'] as string;
    const botRow = page.locator(`tr[data-session="${byBot}"]`);
    await botRow.waitFor({ timeout: 5000 });
    await page.locator(`tr[data-session="${byEditor}"]`).waitFor({ timeout: 5000 });
    expect(await botRow.innerText()).toMatch(/idle[\s\S]*suggest[\s\S]*\$0\.00[\s\S]*ago/);
    expect(await page.locator(`tr[data-session="${byEditor}"]`).innerText()).toContain('plan');

    const models = (await bot('GET', '/models')).body as { default: string; models: { id: string }[] };
    const values = await page.evaluate<string[]>("[...document.querySelectorAll('select[name=model] option')].map((o) => o.value)");
    expect(values).toEqual(['', ...models.models.map((m) => m.id)]);
    expect(models.models[0]!.id).toBe(models.default);
    await audit(page, 'session list');

    // Keyboard only: the folder, then type-ahead in the approval list, then Enter on the button.
    await page.locator('input[name=cwd]').focus();
    await page.keyboard.type(env.ws);
    await page.keyboard.press('Tab'); // model
    await page.keyboard.press('Tab'); // mode
    await page.keyboard.press('Tab'); // approval
    await page.keyboard.type('auto');
    expect(await page.locator('select[name=approval]').inputValue()).toBe('auto');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const main = page.locator('main[data-session]');
    await main.waitFor();
    sessionId = (await main.getAttribute('data-session'))!;
    expect(page.url()).toContain(`#/s/${sessionId}`);
    await page.locator('[data-connection=live]').waitFor();
    const detail = (await bot('GET', `/session/${sessionId}`)).body;
    expect(detail).toMatchObject({ cwd: env.ws, approval: 'auto', status: 'idle' });
  }, T);

  it('streams a turn with Markdown, tool cards and diffs; a permission prompt survives a reload and goes from every tab once answered', async () => {
    await page.locator('#composer-text').focus();
    await page.keyboard.type('Create hello.py, rewrite notes.md and push');
    await page.keyboard.press('Enter');
    await page.locator('.msg-user .bubble', { hasText: 'Create hello.py, rewrite notes.md and push' }).waitFor();
    await page.locator('.msg-agent strong', { hasText: 'create' }).waitFor({ timeout: 10_000 });
    // Both writes as cards with their diffs.
    const hello = page.locator('.tool', { hasText: 'hello.py' }).first();
    await hello.locator('.dl-add', { hasText: "print('hi')" }).waitFor({ timeout: 10_000 });
    const notes = page.locator('.tool', { hasText: 'notes.md' }).first();
    await notes.locator('.dl-del', { hasText: 'original notes, written by a person' }).waitFor();
    await notes.locator('.dl-add', { hasText: 'notes rewritten by the agent' }).waitFor();
    // The push asks: a prominent prompt with the command, the risk and the reason.
    const prompt = page.locator('.prompt');
    await prompt.waitFor({ timeout: 10_000 });
    expect(await prompt.locator('.prompt-call').innerText()).toBe('git push origin main');
    expect(await prompt.locator('.risk').innerText()).toMatch(/high risk/i);
    expect(await prompt.innerText()).toMatch(/publishes commits to a remote/);
    expect(await prompt.locator('button').allInnerTexts()).toEqual(['Allow once', 'Deny', 'Always allow', 'Never allow']);
    await audit(page, 'session with a permission prompt');
    // Side by side: the removed line on the left, the added one on the right.
    await notes.locator('button', { hasText: 'Side by side' }).click();
    const row = notes.locator('.diff-split .drow', { hasText: 'original notes' });
    expect(await row.locator('.dl').first().getAttribute('class')).toContain('dl-del');
    expect(await row.locator('.dl').last().innerText()).toContain('notes rewritten by the agent');
    await notes.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: join(SHOTS, 'session-diff-permission.png') });

    // Reload mid-turn: the same transcript, the same question.
    const before = await page.locator('.transcript').innerText();
    const cards = await page.locator('.tool').count();
    await page.reload();
    await page.locator('.prompt').waitFor({ timeout: 10_000 });
    await sameTranscript(page, before);
    expect(await page.locator('.tool').count()).toBe(cards);

    // A second tab shows the same request; answering in the first (by keyboard: the prompt has the focus) clears both.
    tab2 = await ctx.newPage();
    watch(tab2);
    await tab2.goto(`${consoleUrl}#/s/${sessionId}`);
    await tab2.locator('.prompt').waitFor({ timeout: 10_000 });
    expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-decision') ?? null")).toBe('allow');
    await page.keyboard.press('Enter');
    await page.locator('.prompt').waitFor({ state: 'detached', timeout: 5000 });
    await tab2.locator('.prompt').waitFor({ state: 'detached', timeout: 5000 });
    const push = page.locator('.tool', { hasText: 'git push origin main' });
    await push.locator('.perm-note', { hasText: 'allowed once in this console' }).waitFor();
    await tab2.locator('.tool', { hasText: 'git push origin main' }).locator('.perm-note', { hasText: 'allowed once over HTTP' }).waitFor();

    // The rest of the turn: command output, an open hint, the closing message, safely rendered.
    await page.locator('[data-stop=end_turn]').waitFor({ timeout: 15_000 });
    const ls = page.locator('.tool', { hasText: 'echo built && ls' });
    expect(await ls.locator('.out').innerText()).toMatch(/built\n[\s\S]*hello\.py/);
    expect(await ls.getAttribute('data-status')).toBe('completed');
    await page.locator('.open-hint', { hasText: 'long.txt:42' }).waitFor();
    expect(await page.locator('.msg-agent pre code').last().innerText()).toBe("print('hi')");
    expect(await page.locator('.transcript').innerText()).toContain('<img src=x onerror="window.pwned=1">');
    expect(await page.locator('.transcript img').count()).toBe(0);
    expect(await page.locator('.transcript a[href^="javascript"]').count()).toBe(0);
    expect(await page.evaluate<unknown>('window.pwned')).toBeUndefined();
    // Status, cost, context and the per-turn chart.
    await page.locator('.pill[data-status=idle]').waitFor();
    expect(await page.locator('[data-cost]').innerText()).toMatch(/^\$0\.0\d+$/);
    expect(await page.locator('.usage meter').getAttribute('max')).toBe('200000');
    expect(await page.locator('.chart rect').count()).toBe(2);
  }, T);

  it('a permission answered in the editor (ACP on stdio) leaves the console at once', async () => {
    await acp.call('session/load', { sessionId });
    await page.locator('#composer-text').focus();
    await page.keyboard.type('Push the release branch');
    await page.keyboard.press('Enter');
    await page.locator('.prompt', { hasText: 'git push origin release' }).waitFor({ timeout: 10_000 });
    await tab2.locator('.prompt', { hasText: 'git push origin release' }).waitFor({ timeout: 10_000 });
    const asked = await acp.waitFor((m) => m['method'] === 'session/update' && m['params']?.kind === 'permission_request' && m['params']?.args?.command === 'git push origin release');
    const started = Date.now();
    await acp.call('permission/respond', { sessionId, id: asked['params'].id, decision: 'deny' });
    await page.locator('.prompt').waitFor({ state: 'detached', timeout: 5000 });
    await tab2.locator('.prompt').waitFor({ state: 'detached', timeout: 5000 });
    expect(Date.now() - started).toBeLessThan(2000);
    const card = page.locator('.tool', { hasText: 'git push origin release' });
    await card.locator('.perm-note', { hasText: /denied in the editor \(acp:/ }).waitFor();
    await until('the turn to end', async () => (await page.locator('[data-stop=end_turn]').count()) === 2, 15_000);
    await page.locator('.msg-agent', { hasText: 'Understood: not pushed.' }).waitFor();
    expect(await card.getAttribute('data-status')).toBe('denied');
  }, T);

  it('stops a long command; a network cut shows, and the stream resumes with nothing lost or doubled', async () => {
    await page.locator('#composer-text').focus();
    await page.keyboard.type('Run the long build');
    await page.keyboard.press('Enter');
    const card = page.locator('.tool', { hasText: 'tick $i' });
    await card.locator('.out', { hasText: 'tick 2' }).waitFor({ timeout: 15_000 });

    // The list in the other tab shows it running.
    await tab2.goto(`${consoleUrl}#/`);
    const row = tab2.locator(`tr[data-session="${sessionId}"]`);
    await row.locator('.pill', { hasText: 'running' }).waitFor({ timeout: 5000 });
    await tab2.screenshot({ path: join(SHOTS, 'session-list.png') });

    // Cut the network for 3 s: the console says so, then catches up.
    const cut = proxy.cut(3000);
    await page.locator('[data-connection=reconnecting]').waitFor({ timeout: 2500 });
    expect(await page.locator('[data-connection]').innerText()).toMatch(/disconnected/i);
    await page.screenshot({ path: join(SHOTS, 'disconnected.png') });
    await cut;
    await page.locator('[data-connection=live]').waitFor({ timeout: 10_000 });
    await card.locator('.out', { hasText: 'tick 7' }).waitFor({ timeout: 10_000 });
    const ticks = (await card.locator('.out').innerText()).split('\n').filter((l) => l.startsWith('tick'));
    expect(ticks).toEqual(ticks.map((_, i) => `tick ${i + 1}`));

    // Stop: the card ends cancelled, the turn says so, and the command is gone.
    await page.locator('button.btn-stop').click();
    await page.locator('[data-stop=cancelled]').waitFor({ timeout: 10_000 });
    expect(await card.getAttribute('data-status')).toBe('cancelled');
    await page.locator('.pill[data-status=idle]').waitFor({ timeout: 5000 });
    await until('the stopped command to be gone', () => processesWith('tick $i') === 0, 5000);

    // One more check that nothing was lost or doubled: a fresh replay shows the very same transcript.
    const live = await page.locator('.transcript').innerText();
    await page.reload();
    await sameTranscript(page, live);
  }, T);

  it('has no critical accessibility violation (axe-core) on any page', () => {
    const critical = a11y.flatMap((a) => a.violations.filter((v) => v.impact === 'critical').map((v) => `${a.page}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    expect(critical).toEqual([]);
    expect(a11y.map((a) => a.page)).toEqual(['login', 'session list', 'session with a permission prompt']);
    // Nothing lesser either, today: a regression of any kind shows here.
    expect(a11y.flatMap((a) => a.violations.map((v) => `${a.page}: ${v.id} (${v.impact})`))).toEqual([]);
  });

  it('threw no error in the page', () => {
    expect(pageErrors).toEqual([]);
  });

  describe('a page on another site', () => {
    let tokenless: { proc: FerretClient; url: string } | undefined;
    let env2: TempEnv;
    afterAll(async () => {
      await tokenless?.proc.close();
      env2?.cleanup();
    });

    /** Opens the hostile page (from `site`) against `target`; returns what it saw and the server's statuses. */
    async function attackFrom(site: string, target: string, sid: string): Promise<{ results: HostileResults; statuses: [string, number][] }> {
      const hostile = await startHostileSite(site);
      const p = await ctx.newPage();
      const statuses: [string, number][] = [];
      p.on('response', (r) => {
        if (r.url().startsWith(target) && r.request().method() === 'POST') statuses.push([new URL(r.url()).pathname, r.status()]);
      });
      try {
        await p.goto(`${hostile.url}?target=${encodeURIComponent(target)}&session=${encodeURIComponent(sid)}&token=${encodeURIComponent(TOKEN)}`);
        const results = await p.evaluate<HostileResults>('window.__done');
        return { results, statuses };
      } finally {
        await p.close();
        await hostile.close();
      }
    }

    const expectNothingWorked = (r: { results: HostileResults; statuses: [string, number][] }) => {
      expect(r.results.reads).toEqual({ sessions: 'blocked', events: 'blocked', authState: 'blocked', openapi: 'blocked' });
      expect(r.results.preflighted).toBe('blocked');
      expect(r.results.eventSource).toBe('error');
      expect(r.results.script).toBe('error');
      // Every state-changing request that went out was refused.
      expect(r.statuses.length).toBe(r.results.writes.length);
      expect(r.statuses.filter(([, s]) => s !== 403)).toEqual([]);
    };

    it('can neither read nor change anything on the server with a token, while the person is logged in', async () => {
      const sessionsBefore = ((await bot('GET', '/session')).body['sessions'] as unknown[]).length;
      const before = (await bot('GET', `/session/${sessionId}`)).body;
      for (const site of ['127.0.0.1', '::1']) expectNothingWorked(await attackFrom(site, `http://[::1]:${port}`, sessionId));
      const after = (await bot('GET', `/session/${sessionId}`)).body;
      expect(after).toMatchObject({ approval: before['approval'], mode: before['mode'], turns: before['turns'], lastSeq: before['lastSeq'] });
      expect(((await bot('GET', '/session')).body['sessions'] as unknown[]).length).toBe(sessionsBefore);
      // Still logged in: the cross-site logout did nothing.
      expect(await page.evaluate<boolean>("fetch('/auth/session').then((r) => r.json()).then((a) => a.authenticated)")).toBe(true);
    }, T);

    it('cannot cancel a running turn on a tokenless loopback server; the console there works without a login', async () => {
      env2 = tempEnv();
      const slow = writeScript(env2.home, 'slow.json', { responses: [{ chunks: ['Sleeping.'], toolCalls: [{ name: 'bash', arguments: { command: 'sleep 29.7' } }] }, { chunks: ['woke'] }] });
      tokenless = await startHttp(['--cwd', env2.ws, '--model', `scripted:${slow}`, '--approval', 'full-auto'], { CHIMERA_HOME: env2.home });
      const u = tokenless.url;
      const sid = (await api(u, 'POST', '/session', {})).body['sessionId'] as string;
      expect((await api(u, 'POST', `/session/${sid}/message?wait=false`, { text: 'sleep' })).status).toBe(202);
      await until('the turn to run', async () => processesWith('sleep 29.7') > 0);
      const before = (await api(u, 'GET', `/session/${sid}`)).body;
      for (const site of ['127.0.0.1', '::1']) expectNothingWorked(await attackFrom(site, u, sid));
      const d = (await api(u, 'GET', `/session/${sid}`)).body;
      expect(d).toMatchObject({ status: 'running', turns: before['turns'], lastSeq: before['lastSeq'], approval: 'full-auto', mode: 'code' });
      expect(processesWith('sleep 29.7')).toBeGreaterThan(0);
      expect(((await api(u, 'GET', '/session')).body['sessions'] as unknown[]).length).toBe(1);

      // The console on that server: no login, and its own Stop (same origin) works.
      const p = await ctx.newPage();
      watch(p);
      try {
        await p.goto(`${u}/#/s/${sid}`);
        await p.locator('.tool[data-status=running]', { hasText: 'sleep 29.7' }).waitFor({ timeout: 10_000 });
        expect(await p.locator('button', { hasText: 'Log out' }).count()).toBe(0);
        await p.locator('button.btn-stop').click();
        await p.locator('[data-stop=cancelled]').waitFor({ timeout: 10_000 });
      } finally {
        await p.close();
      }
      await until('the stopped command to be gone', () => processesWith('sleep 29.7') === 0, 5000);
    }, T);
  });
});
