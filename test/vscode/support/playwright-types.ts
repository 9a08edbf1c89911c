// The part of playwright-core's API this test uses. playwright-core is loaded at run time from
// .cache/ (see e2e-tools.ts), so the repository's type-check cannot see its own declarations;
// these mirror them for the calls made here, nothing more.

export interface Playwright {
  chromium: { launch(opts: { executablePath: string; args?: string[]; headless?: boolean }): Promise<Browser> };
}

export interface Browser {
  newPage(opts?: { viewport?: { width: number; height: number } }): Promise<Page>;
  close(): Promise<void>;
}

interface WaitOpts {
  state?: 'attached' | 'detached' | 'visible' | 'hidden';
  timeout?: number;
}

export interface Locator {
  first(): Locator;
  nth(i: number): Locator;
  locator(selector: string, opts?: { hasText?: string | RegExp }): Locator;
  waitFor(opts?: WaitOpts): Promise<void>;
  click(opts?: { timeout?: number }): Promise<void>;
  fill(value: string): Promise<void>;
  selectOption(value: string): Promise<string[]>;
  textContent(): Promise<string | null>;
  innerText(): Promise<string>;
  allTextContents(): Promise<string[]>;
  allInnerTexts(): Promise<string[]>;
  press(key: string): Promise<void>;
  dispatchEvent(type: string): Promise<void>;
  getAttribute(name: string): Promise<string | null>;
  inputValue(): Promise<string>;
  count(): Promise<number>;
  isVisible(): Promise<boolean>;
  scrollIntoViewIfNeeded(): Promise<void>;
  screenshot(opts: { path: string }): Promise<Buffer>;
}

export interface FrameLocator {
  locator(selector: string, opts?: { hasText?: string | RegExp }): Locator;
  frameLocator(selector: string): FrameLocator;
}

export interface ConsoleMessage {
  type(): string;
  text(): string;
}

export interface Page {
  goto(url: string, opts?: { timeout?: number }): Promise<unknown>;
  reload(opts?: { timeout?: number }): Promise<unknown>;
  locator(selector: string, opts?: { hasText?: string | RegExp }): Locator;
  frameLocator(selector: string): FrameLocator;
  keyboard: { press(key: string): Promise<void>; type(text: string, opts?: { delay?: number }): Promise<void>; insertText(text: string): Promise<void> };
  screenshot(opts: { path: string }): Promise<Buffer>;
  on(event: 'console', f: (m: ConsoleMessage) => void): void;
  close(): Promise<void>;
}
