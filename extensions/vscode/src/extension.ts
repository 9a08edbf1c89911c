import './zod-setup.js'; // first: before the ACP SDK builds its schemas
import * as vscode from 'vscode';
import { PendingEdits } from './edits/pending-edits.js';
import { EditReview } from './edits/review.js';
import { ChimeraController } from './session/controller.js';
import { chatAction } from './ui/chat-actions.js';
import { BridgeStatusBar } from './ui/bridge-status.js';
import { ChatViewProvider } from './ui/chat-view.js';
import { askRejectReason } from './ui/reject-reason.js';

let controller: ChimeraController | undefined;

/**
 * Where a command's argument names a file: a path (chat, code lens) or a Uri (editor title); from
 * a keybinding, the edit shown in the active editor, else the oldest pending one.
 */
function pathOf(arg: unknown, pending: PendingEdits): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg instanceof vscode.Uri) return arg.fsPath;
  const active = vscode.window.activeTextEditor?.document.uri.fsPath;
  return active && pending.get(active) ? active : pending.list()[0]?.path;
}

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Chimera', { log: true });
  const pending = new PendingEdits();
  const review = new EditReview(pending, (path, r) => c.reviewed(path, r));
  const reject = async (path: string) => {
    const answer = await askRejectReason(vscode.workspace.asRelativePath(path, false));
    if (answer) await review.reject(path, answer.reason);
  };
  const chat = new ChatViewProvider(context.extensionUri, (m) => chatAction(m, c, review, reject, () => log.show(true)));
  const c = new ChimeraController(context, log, chat, pending, review);
  controller = c;
  // A reloaded window first goes back to the server and turn the last one left running; edits
  // pending from before the reload that no turn waits on any more are offered after that.
  void c.reattach().catch((err: unknown) => log.warn(`could not reattach: ${err instanceof Error ? err.message : String(err)}`)).finally(() => c.restorePending());
  const bridge = new BridgeStatusBar(() => c.bridgeStatus());
  c.onSession = () => void bridge.refresh();
  context.subscriptions.push(
    log,
    bridge,
    vscode.commands.registerCommand('chimera.pairDevice', () => bridge.pair()),
    review,
    chat,
    vscode.commands.registerCommand('chimera.startSession', () => c.startSession()),
    vscode.commands.registerCommand('chimera.resumeSession', (id?: unknown) => c.resumeSession(typeof id === 'string' ? id : undefined)),
    vscode.commands.registerCommand('chimera.stop', () => c.stop()),
    vscode.commands.registerCommand('chimera.showProcesses', () => c.showProcesses()),
    vscode.commands.registerCommand('chimera.showLog', () => log.show(true)),
    // Undo, redo and rewind are ferret's slash commands, sent as the session's next prompt: the
    // answer (what was restored, or why it was refused) shows in the chat like any other.
    vscode.commands.registerCommand('chimera.undo', () => c.prompt('/undo')),
    vscode.commands.registerCommand('chimera.redo', () => c.prompt('/redo')),
    vscode.commands.registerCommand('chimera.rewind', async () => {
      const turn = await vscode.window.showInputBox({ title: 'Rewind to before turn…', prompt: 'The turn number (send /rewind in the chat to list them)', validateInput: (v) => (/^\d+$/.test(v.trim()) ? undefined : 'a turn number, 1 for the first') });
      if (turn === undefined) return;
      const modes = [
        { label: 'both', description: 'files and conversation' },
        { label: 'code', description: 'files only: the model still sees the turns' },
        { label: 'conversation', description: 'conversation only: files stay as they are' },
      ];
      const mode = await vscode.window.showQuickPick(modes, { title: `Rewind to before turn ${turn.trim()}` });
      if (mode) await c.prompt(`/rewind ${turn.trim()} ${mode.label}`);
    }),
    vscode.commands.registerCommand('chimera.restartServer', () => c.restartServer()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (['chimera.command', 'chimera.args', 'chimera.env'].some((k) => e.affectsConfiguration(k))) c.settingsChanged();
    }),
    vscode.commands.registerCommand('chimera.focusChat', () => chat.reveal()),
    vscode.commands.registerCommand('chimera.acceptEdit', async (arg?: unknown) => {
      const path = pathOf(arg, pending);
      if (path) await review.accept(path);
    }),
    vscode.commands.registerCommand('chimera.rejectEdit', async (arg?: unknown) => {
      const path = pathOf(arg, pending);
      if (path) await reject(path);
    }),
    vscode.commands.registerCommand('chimera.acceptAllEdits', () => c.acceptAll('now')),
  );
}

/** The window is closing (or reloading): a detached server runs on, a stdio child is stopped. */
export async function deactivate(): Promise<void> {
  await controller?.dispose();
  controller = undefined;
}
