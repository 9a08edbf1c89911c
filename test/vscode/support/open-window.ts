import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeServer } from './code-server.js';
import { CHIMERA_BIN, CHROMIUM, CHROMIUM_ARGS, PACKAGE_SCRIPT, playwright, requireTools } from './e2e-tools.js';
import type { Browser } from './playwright-types.js';
import { Workbench } from './workbench.js';

// Opens VS Code in the browser on a fresh workspace with the Chimera extension installed from a
// .vsix built from this checkout, the way each code-server test starts: its own temp folder,
// code-server user data, CHIMERA_HOME and scripted model. More windows on the same folder are
// more pages of the same browser.

/** Polls `pred` every 50 ms until it holds, else fails naming `what`. */
export async function until(what: string, pred: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let vsix: string | undefined;

/** The .vsix under test, built and packed once per test process. */
export function builtVsix(): string {
  vsix ??= execFileSync(process.execPath, [PACKAGE_SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim().split('\n').at(-1)!;
  return vsix;
}

export interface OpenOptions {
  /** Names the temp folder (chimera-vscode-PREFIX-…). */
  prefix: string;
  /** The scripted model's file (docs/scripted-model.md). */
  model: object;
  /** Files the person has in the workspace before the window opens. */
  files?: Record<string, string>;
  /** Settings beyond the defaults every test uses (chimera.* included). */
  settings?: Record<string, unknown>;
  /** chimera.args after `ferret serve --model scripted:…` (default: `--approval auto`). */
  serveArgs?: string[];
}

export class OpenedWorkbench {
  readonly windows: Workbench[] = [];
  /** Errors the workbench logged naming Chimera, in any window. */
  readonly browserErrors: string[] = [];
  failed = false;

  private constructor(
    readonly tmp: string,
    readonly ws: string,
    readonly cs: CodeServer,
    readonly browser: Browser,
    readonly url: string,
  ) {}

  static async open(o: OpenOptions): Promise<OpenedWorkbench> {
    requireTools();
    const tmp = realpathSync(mkdtempSync(join(tmpdir(), `chimera-vscode-${o.prefix}-`)));
    const ws = join(tmp, 'workspace');
    mkdirSync(ws, { recursive: true });
    for (const [name, text] of Object.entries(o.files ?? {})) writeFileSync(join(ws, name), text);
    const model = join(tmp, 'model.json');
    writeFileSync(model, JSON.stringify(o.model));
    const cs = new CodeServer(join(tmp, 'code-server'));
    cs.settings({
      'workbench.startupEditor': 'none',
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'chat.disableAIFeatures': true,
      'extensions.autoCheckUpdates': false,
      'chimera.command': CHIMERA_BIN,
      'chimera.args': ['ferret', 'serve', '--model', `scripted:${model}`, ...(o.serveArgs ?? ['--approval', 'auto'])],
      'chimera.env': { CHIMERA_HOME: join(tmp, 'chimera-home'), FERRET_LOG_LEVEL: 'info' },
      ...o.settings,
    });
    await cs.install(builtVsix());
    const url = await cs.start(ws);
    const browser = await playwright().chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const opened = new OpenedWorkbench(tmp, ws, cs, browser, url);
    await opened.newWindow();
    return opened;
  }

  /** The first window. */
  get wb(): Workbench {
    return this.windows[0]!;
  }

  /** Another window on the same folder (a second browser page, as a second tab of code-server is). */
  async newWindow(): Promise<Workbench> {
    const page = await this.browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error' && /chimera/i.test(m.text())) this.browserErrors.push(m.text());
    });
    const wb = new Workbench(page);
    this.windows.push(wb);
    await wb.open(this.url);
    return wb;
  }

  /** The extension's storage folder for this workspace (window records). */
  storage(): string {
    const root = join(this.cs.userData, 'User', 'workspaceStorage');
    for (const d of readdirSync(root)) {
      const dir = join(root, d, 'ferret.chimera');
      if (existsSync(dir)) return dir;
    }
    throw new Error('the extension has no storage folder yet');
  }

  /** The detached server as the extension wrote it down (none with keepServerOnReload off). */
  serverState(): { pid: number; url: string; token: string } | undefined {
    // Kept under CHIMERA_HOME/ferret/vscode/<workspace hash>/ (serverStateDir), out of the agent's reach.
    const root = join(this.tmp, 'chimera-home', 'ferret', 'vscode');
    for (const d of existsSync(root) ? readdirSync(root) : []) {
      try {
        return JSON.parse(readFileSync(join(root, d, 'server.json'), 'utf8')) as { pid: number; url: string; token: string };
      } catch {
        // not this folder
      }
    }
    return undefined;
  }

  /** Ends the detached server (it outlives windows by design), the browser and code-server; keeps the folder after a failure. */
  async close(): Promise<void> {
    const pid = this.serverState()?.pid;
    if (pid) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
    await this.browser.close().catch(() => undefined);
    await this.cs.stop();
    if (!this.failed) rmSync(this.tmp, { recursive: true, force: true });
    else console.error(`kept ${this.tmp} for inspection (code-server logs under code-server/user-data/logs)`);
  }
}
