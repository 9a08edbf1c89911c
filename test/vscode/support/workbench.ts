import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { FrameLocator, Locator, Page } from './playwright-types.js';

/**
 * The VS Code workbench as a person drives it: the command palette, quick picks, editor tabs,
 * code lenses, and the Chimera chat view (a webview: two nested iframes).
 */
export class Workbench {
  constructor(readonly page: Page) {}

  /** Opens the workbench and waits until extensions are up (the Chimera activity bar icon is there). */
  async open(url: string): Promise<void> {
    await this.page.goto(url, { timeout: 60_000 });
    await this.ready();
  }

  async ready(): Promise<void> {
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await this.page.locator('.activitybar [aria-label^="Chimera"]').first().waitFor({ timeout: 60_000 });
  }

  /**
   * F1, type the command's title, wait until it is the focused row, Enter. Right after a reload the
   * workbench shows cached views before the extension's commands are registered again, so a
   * palette that does not list the command yet is closed and opened again.
   */
  async runCommand(title: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.page.keyboard.press('F1');
      await this.quickInput.waitFor({ state: 'visible' });
      await this.page.keyboard.type(title);
      const row = this.quickInput.locator('.monaco-list-row.focused', { hasText: title });
      const listed = await row.waitFor({ timeout: 3_000 }).then(
        () => true,
        () => false,
      );
      if (listed) return this.page.keyboard.press('Enter');
      if (Date.now() > deadline) throw new Error(`the command palette does not list "${title}"`);
      await this.page.keyboard.press('Escape');
    }
  }

  /**
   * Edits the user settings as a person does: settings.json opened from the palette (it comes up
   * focused), its text replaced, saved, closed. `file`: where code-server keeps it, to see the save.
   */
  async editUserSettings(values: Record<string, unknown>, file: string): Promise<void> {
    const text = JSON.stringify(values); // one line: the editor would indent typed newlines
    await this.runCommand('Preferences: Open User Settings (JSON)');
    await this.page.locator('.monaco-editor.focused', { hasText: 'chimera.args' }).first().waitFor();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.insertText(text);
    // Whatever the editor added after the cursor (an auto-closed quote or brace) goes.
    await this.page.keyboard.press('ControlOrMeta+Shift+End');
    await this.page.keyboard.press('Delete');
    await this.page.keyboard.press('ControlOrMeta+S');
    const saved = (): boolean => {
      try {
        return isDeepStrictEqual(JSON.parse(readFileSync(file, 'utf8')), values);
      } catch {
        return false; // caught mid-write
      }
    };
    const deadline = Date.now() + 10_000;
    while (!saved()) {
      if (Date.now() > deadline) throw new Error(`settings.json was not saved as typed; it holds:\n${readFileSync(file, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await this.closeModalEditor();
  }

  /** VS Code 1.139 opens settings.json in a modal editor: Escape, else its close button. */
  async closeModalEditor(): Promise<void> {
    const modal = this.page.locator('.modal-editor-part');
    if (!(await modal.isVisible())) return;
    await this.page.keyboard.press('Escape');
    const closed = await modal.waitFor({ state: 'hidden', timeout: 2_000 }).then(
      () => true,
      () => false,
    );
    if (!closed) await modal.locator('.codicon-close').first().click();
    await modal.waitFor({ state: 'hidden', timeout: 5_000 });
  }

  get quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  /** The chat view's document: the webview's outer frame, then its content frame. */
  get chat(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  }

  /** Types a prompt into the chat and sends it with the Send button. */
  async send(text: string): Promise<void> {
    await this.chat.locator('#prompt').fill(text);
    await this.chat.locator('#send').click();
  }

  /** A tool card in the chat, by a piece of its title. */
  card(title: string): Locator {
    return this.chat.locator('.tool-card', { hasText: title }).first();
  }

  /** Waits until the chat is idle (no prompt running). */
  async idle(timeout = 20_000): Promise<void> {
    await this.chat.locator('body[data-busy="false"]').waitFor({ state: 'attached', timeout });
  }

  /** The editor tab titles, in order. */
  tabs(): Promise<string[]> {
    return this.page.locator('.tabs-container .tab .label-name').allTextContents();
  }

  /** A code lens of the active editor group (a diff's modified side shows ours). */
  codeLens(text: string): Locator {
    return this.page.locator('.editor-group-container.active .codelens-decoration a', { hasText: text }).first();
  }

  /** The cursor position the status bar shows ("Ln 42, Col 1"). */
  async cursor(): Promise<string> {
    return (await this.page.locator('.statusbar-item[id="status.editor.selection"]').first().innerText()).trim();
  }

  async screenshot(path: string): Promise<void> {
    await this.page.screenshot({ path });
  }
}
