import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

// The console's browser test drives Debian's chromium with playwright-core, both installed by the
// shared setup scripts (scripts/setup/debian.sh and playwright.sh, called by test/console/setup.sh
// and, in CI, by .ci/run). Nothing here downloads anything.

export const ROOT = resolve(import.meta.dirname, '../../..');
const PLAYWRIGHT_PKG = resolve(ROOT, '.cache/playwright/package.json');
export const CHROMIUM = '/usr/bin/chromium';
export const CHIMERA_BIN = resolve(ROOT, 'dist/cli/main.js');
export const CONSOLE_DIR = resolve(ROOT, 'dist/console');
const AXE = resolve(ROOT, 'node_modules/axe-core/axe.min.js');

/** Fails loudly (never skips) when the setup has not run, naming the script that installs it. */
export function requireTools(): void {
  const missing = [
    [PLAYWRIGHT_PKG, 'playwright-core'],
    [CHROMIUM, "Debian's chromium"],
    [CHIMERA_BIN, 'the built chimera (npm run build)'],
    [resolve(CONSOLE_DIR, 'index.html'), 'the built console (npm run build)'],
    [AXE, 'axe-core (npm ci)'],
  ].filter(([path]) => !existsSync(path!));
  if (missing.length === 0) return;
  throw new Error(
    `The console's browser test needs ${missing.map(([, what]) => what).join(', ')}, which are not there. ` +
      `Run: bash test/console/setup.sh (chromium and playwright-core into .cache/; .ci/run calls it) and npm run build.`,
  );
}

/** How this machine kind wants Chromium started (root, no GPU, closed network). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** playwright-core from the cache, typed by the facade below. */
export function playwright(): Playwright {
  return createRequire(PLAYWRIGHT_PKG)('playwright-core') as Playwright;
}

/** axe-core's source, evaluated in a page (page.evaluate is not subject to the page's CSP). */
export const axeSource = (): string => readFileSync(AXE, 'utf8');

// The part of playwright-core's API this test uses (it is loaded at run time from .cache/, so the
// type-check cannot see its own declarations).
export interface Playwright {
  chromium: { launch(opts: { executablePath: string; args?: string[] }): Promise<Browser> };
}
export interface Browser {
  newContext(opts?: { viewport?: { width: number; height: number }; reducedMotion?: 'reduce' }): Promise<BrowserContext>;
  close(): Promise<void>;
}
export interface Cookie {
  name: string;
  value: string;
  httpOnly: boolean;
  sameSite: 'Strict' | 'Lax' | 'None';
  secure: boolean;
}
export interface BrowserContext {
  newPage(): Promise<Page>;
  cookies(): Promise<Cookie[]>;
  close(): Promise<void>;
}
interface WaitOpts {
  state?: 'attached' | 'detached' | 'visible' | 'hidden';
  timeout?: number;
}
export interface Locator {
  first(): Locator;
  last(): Locator;
  nth(i: number): Locator;
  locator(selector: string, opts?: { hasText?: string | RegExp }): Locator;
  waitFor(opts?: WaitOpts): Promise<void>;
  click(opts?: { timeout?: number }): Promise<void>;
  fill(value: string): Promise<void>;
  focus(): Promise<void>;
  press(key: string): Promise<void>;
  selectOption(value: string): Promise<string[]>;
  textContent(): Promise<string | null>;
  innerText(): Promise<string>;
  allInnerTexts(): Promise<string[]>;
  getAttribute(name: string): Promise<string | null>;
  inputValue(): Promise<string>;
  count(): Promise<number>;
  isVisible(): Promise<boolean>;
  evaluate<R>(fn: (el: { textContent: string | null; scrollIntoView(opts?: { block?: 'start' | 'center' | 'end' }): void }) => R): Promise<R>;
}
export interface ConsoleMessage {
  type(): string;
  text(): string;
}
export interface Request {
  url(): string;
  method(): string;
}
export interface Response {
  url(): string;
  status(): number;
  request(): Request;
}
export interface Page {
  goto(url: string, opts?: { timeout?: number }): Promise<unknown>;
  reload(opts?: { timeout?: number }): Promise<unknown>;
  url(): string;
  locator(selector: string, opts?: { hasText?: string | RegExp }): Locator;
  keyboard: { press(key: string): Promise<void>; type(text: string, opts?: { delay?: number }): Promise<void> };
  screenshot(opts: { path: string; fullPage?: boolean }): Promise<Buffer>;
  evaluate<R>(fn: string | (() => R | Promise<R>)): Promise<R>;
  evaluate<R, A>(fn: (arg: A) => R | Promise<R>, arg: A): Promise<R>;
  waitForFunction(fn: string | (() => unknown), arg?: unknown, opts?: { timeout?: number }): Promise<unknown>;
  on(event: 'console', f: (m: ConsoleMessage) => void): void;
  on(event: 'pageerror', f: (e: Error) => void): void;
  on(event: 'request', f: (r: Request) => void): void;
  on(event: 'response', f: (r: Response) => void): void;
  on(event: 'dialog', f: (d: { accept(text?: string): Promise<void>; dismiss(): Promise<void> }) => void): void;
  close(): Promise<void>;
}

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's WCAG 2.x A/AA rules on the page as it is now. */
export async function axe(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate<boolean>('typeof window.axe === "object"');
  if (!loaded) await page.evaluate<void>(`${axeSource()}\n;undefined`);
  return page.evaluate<AxeViolation[]>(
    `window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
       .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
}
