import * as vscode from 'vscode';
import { editPlan, type EditPlan } from '../model/edit-plan.js';
import type { PendingEdits } from './pending-edits.js';
import { currentText } from './workspace-files.js';

export const PROPOSED_SCHEME = 'chimera-proposed';
const ORIGINAL_SCHEME = 'chimera-original';

/**
 * The review of staged edits: a diff (what the file was ↔ what the agent wants) with Accept and
 * Reject code lenses (and editor-title buttons) on the proposed side. Accept applies a
 * WorkspaceEdit and saves; Reject drops the edit; until then the disk is untouched.
 */
export class EditReview implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  private readonly subs: vscode.Disposable[] = [];
  readonly onDidChange = this.changed.event;
  readonly onDidChangeCodeLenses = this.lensesChanged.event;

  constructor(
    private readonly pending: PendingEdits,
    private readonly onReviewed: (path: string, review: 'accepted' | 'rejected' | 'withdrawn') => void,
  ) {
    this.subs.push(
      vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this),
      vscode.workspace.registerTextDocumentContentProvider(ORIGINAL_SCHEME, this),
      vscode.languages.registerCodeLensProvider({ scheme: PROPOSED_SCHEME }, this),
      pending.onChange((path) => {
        this.changed.fire(uriOf(PROPOSED_SCHEME, path));
        this.changed.fire(uriOf(ORIGINAL_SCHEME, path));
        this.lensesChanged.fire();
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const e = this.pending.get(uri.fsPath);
    if (!e) return '';
    return uri.scheme === PROPOSED_SCHEME ? e.proposed : (e.original ?? '');
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const path = doc.uri.fsPath;
    const e = this.pending.get(path);
    if (!e) return [];
    const top = new vscode.Range(0, 0, 0, 0);
    return [
      new vscode.CodeLens(top, { title: '$(check) Accept', command: 'chimera.acceptEdit', arguments: [path], tooltip: 'Write this change to disk' }),
      new vscode.CodeLens(top, { title: '$(discard) Reject', command: 'chimera.rejectEdit', arguments: [path], tooltip: 'Drop this change; the file stays as it is' }),
      new vscode.CodeLens(top, { title: e.original === null ? 'new file proposed by Chimera' : 'change proposed by Chimera', command: '' }),
    ];
  }

  /** Opens the diff of a staged edit, leaving focus where it is (the chat). */
  async open(path: string, preserveFocus = true): Promise<void> {
    const e = this.pending.get(path);
    if (!e) return;
    const name = vscode.workspace.asRelativePath(path);
    const title = `${name} ${e.original === null ? '(new file)' : ''} ↔ Chimera's edit`.replace('  ', ' ');
    await vscode.commands.executeCommand('vscode.diff', uriOf(ORIGINAL_SCHEME, path), uriOf(PROPOSED_SCHEME, path), title, { preview: false, preserveFocus });
  }

  async accept(path: string): Promise<void> {
    const e = this.pending.get(path);
    if (!e) return;
    const plan = editPlan(path, e.proposed, await currentText(path));
    if (!(await applyPlan(plan))) {
      void vscode.window.showErrorMessage(`Chimera could not write ${vscode.workspace.asRelativePath(path)}; the change is still pending.`);
      return;
    }
    this.pending.take(path);
    this.pending.decide(path, { kind: 'accepted' });
    await this.closeDiff(path);
    this.onReviewed(path, 'accepted');
  }

  /** Drops the edit; the agent's write is answered "rejected" (with the person's reason, if given). */
  async reject(path: string, reason?: string): Promise<void> {
    if (!this.pending.take(path)) return;
    this.pending.decide(path, { kind: 'rejected', ...(reason ? { reason } : {}) });
    await this.closeDiff(path);
    this.onReviewed(path, 'rejected');
  }

  /** The agent withdrew its write (the turn was stopped) before the person decided: the diff goes away. */
  async withdraw(path: string): Promise<void> {
    if (!this.pending.take(path)) return;
    this.pending.decide(path, { kind: 'withdrawn' });
    await this.closeDiff(path);
    this.onReviewed(path, 'withdrawn');
  }

  /** "Accept all": every pending edit, in the order they were proposed. */
  async acceptAll(): Promise<void> {
    for (const e of this.pending.list()) await this.accept(e.path);
  }

  private async closeDiff(path: string): Promise<void> {
    const proposed = uriOf(PROPOSED_SCHEME, path).toString();
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === proposed);
    if (tabs.length) await vscode.window.tabGroups.close(tabs);
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
    this.lensesChanged.dispose();
  }
}

function uriOf(scheme: string, path: string): vscode.Uri {
  return vscode.Uri.file(path).with({ scheme });
}

/** The plan as a WorkspaceEdit, applied, then saved: only now does the file change on disk. */
async function applyPlan(plan: EditPlan): Promise<boolean> {
  const uri = vscode.Uri.file(plan.path);
  if (plan.kind === 'none') return true;
  const edit = new vscode.WorkspaceEdit();
  if (plan.kind === 'create') {
    // Created with its content in one step: the file never exists half-written.
    edit.createFile(uri, { overwrite: false, contents: new TextEncoder().encode(plan.text) });
    return vscode.workspace.applyEdit(edit);
  }
  const { start, end } = plan.range;
  edit.replace(uri, new vscode.Range(start.line, start.character, end.line, end.character), plan.text);
  if (!(await vscode.workspace.applyEdit(edit))) return false;
  const doc = await vscode.workspace.openTextDocument(uri);
  return doc.save();
}
