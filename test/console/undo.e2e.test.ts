import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import { until } from '../support/until.js';
import type { Browser, Page } from './support/browser.js';
import { openBrowser, openSession } from './support/open.js';

// "Restore to here" in the web console, in Chromium: a scripted turn edits a.py, creates b.txt
// with bash and deletes c.md; the button under that request puts all three back byte-exact.

const T = 60_000;
const A_PY = 'print("one")\r\n';
const MODEL = {
  responses: [
    {
      chunks: ['Changing three files.'],
      toolCalls: [
        { name: 'write_file', arguments: { path: 'a.py', content: 'print("two")\n' } },
        { name: 'bash', arguments: { command: "printf 'new\\n' > b.txt && rm c.md" } },
      ],
    },
    { chunks: ['Done.'] },
  ],
};

describe('restore to here in the web console (Chromium)', () => {
  let env: TempEnv;
  let server: { proc: FerretClient; url: string };
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    ({ browser, page, pageErrors } = await openBrowser({ viewport: { width: 1200, height: 760 }, reducedMotion: false }));
    env = tempEnv();
    const model = writeScript(env.home, 'model.json', MODEL);
    server = await startHttp(['--cwd', env.ws, '--model', `scripted:${model}`, '--approval', 'full-auto'], { CHIMERA_HOME: env.home });
  }, T);

  afterAll(async () => {
    await browser?.close();
    await server?.proc.close();
    env?.cleanup();
  }, 30_000);

  it('the button under a request puts the files back as they were before it', async () => {
    writeFileSync(join(env.ws, 'a.py'), A_PY);
    writeFileSync(join(env.ws, 'c.md'), '# notes\n');
    const { url } = server;
    const sid = (await api(url, 'POST', '/session', {})).body['sessionId'] as string;
    await openSession(page, url, sid);
    expect((await api(url, 'POST', `/session/${sid}/message`, { text: 'change the files' })).body).toMatchObject({ stopReason: 'end_turn' });
    expect(existsSync(join(env.ws, 'b.txt'))).toBe(true);

    const button = page.locator('.msg-user', { hasText: 'change the files' }).locator('button.restore', { hasText: 'Restore to here' });
    await button.waitFor({ timeout: 10_000 });
    await button.click();
    await until('b.txt removed', () => !existsSync(join(env.ws, 'b.txt')), 10_000);
    expect(readFileSync(join(env.ws, 'a.py'), 'utf8')).toBe(A_PY);
    expect(readFileSync(join(env.ws, 'c.md'), 'utf8')).toBe('# notes\n');
    // The answer shows in the transcript.
    await page.locator('.msg-agent', { hasText: 'restored 3 file' }).waitFor({ timeout: 10_000 });
    expect(pageErrors).toEqual([]);
  }, T);
});
