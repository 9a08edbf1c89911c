import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS, playwright, requireTools, ROOT, type Browser, type BrowserContext, type Page } from './browser.js';

// The page set-up every console browser test repeated: check the tools are there, start Debian's
// chromium, open one page in one context and collect the page's uncaught errors.

/** Where the console's browser tests leave their screenshots. */
export const CONSOLE_SHOTS = join(ROOT, '.tmp', 'console-e2e');

export interface OpenOptions {
  viewport?: { width: number; height: number };
  /** Default true: animations off, so screenshots and timings do not depend on them. */
  reducedMotion?: boolean;
  /** A folder for screenshots, made if missing. */
  shots?: string;
}

export interface OpenedBrowser {
  browser: Browser;
  ctx: BrowserContext;
  page: Page;
  /** Uncaught errors of `page` (a test that cares asserts this is empty). */
  pageErrors: string[];
}

/** Chromium with one page, after checking the set-up (fails loudly, naming the setup script). */
export async function openBrowser(opts: OpenOptions = {}): Promise<OpenedBrowser> {
  requireTools();
  if (opts.shots) mkdirSync(opts.shots, { recursive: true });
  const browser = await playwright().chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const ctx = await browser.newContext({
    viewport: opts.viewport ?? { width: 1200, height: 760 },
    ...(opts.reducedMotion === false ? {} : { reducedMotion: 'reduce' as const }),
  });
  const page = await ctx.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  return { browser, ctx, page, pageErrors };
}

/** Opens a session's page of the console at `url` and waits until its event stream is live. */
export async function openSession(page: Page, url: string, sessionId: string): Promise<void> {
  await page.goto(`${url.replace(/\/$/, '')}/#/s/${sessionId}`);
  await page.locator('[data-connection=live]').waitFor({ timeout: 10_000 });
}
