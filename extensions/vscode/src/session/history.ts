import * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { ferretMeta } from '../model/ferret-meta.js';
import { sessionItems, type SessionItem } from '../model/session-items.js';

const LAST = 'chimera.lastSessionId';

/** Remembered per workspace, so the next window can offer it first. */
export function rememberSession(state: vscode.Memento, sessionId: string): Thenable<void> {
  return state.update(LAST, sessionId);
}

type Pick = vscode.QuickPickItem & SessionItem;

const RENAME: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: 'Rename this session' };
const DELETE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Delete this session (its history is removed)' };

/**
 * The quick pick of this workspace's sessions (session/list), newest first, the last one marked.
 * Typing searches titles, models and dates; the pencil renames one (ferret's `_ferret/session/rename`,
 * offered only when the server lists it), the trash button deletes one (session/delete) after asking.
 */
export async function pickSession(agent: acp.ClientContext, cwd: string, state: vscode.Memento, canRename = false): Promise<string | undefined> {
  const list = async (): Promise<Pick[]> => {
    const r = await agent.request(acp.methods.agent.session.list, { cwd });
    return sessionItems(
      r.sessions.map((s) => ({ ...s, meta: ferretMeta<{ costUsd?: number; model?: string }>(s._meta) })),
      state.get<string>(LAST),
      new Date(),
    ).map((i) => ({ ...i, buttons: canRename ? [RENAME, DELETE] : [DELETE] }));
  };
  const items = await list();
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Chimera has no earlier sessions in this folder.');
    return undefined;
  }
  const qp = vscode.window.createQuickPick<Pick>();
  qp.title = 'Chimera: resume a session';
  qp.placeholder = 'Type to search; pick a session to load its history';
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.items = items;
  return new Promise((resolve) => {
    let busy = false;
    qp.onDidTriggerItemButton(async ({ item, button }) => {
      if (busy) return;
      busy = true;
      qp.ignoreFocusOut = true;
      if (button === RENAME) {
        try {
          await rename(agent, item);
          qp.items = await list();
        } finally {
          busy = false;
          qp.ignoreFocusOut = false;
          qp.show();
        }
        return;
      }
      const sure = await vscode.window.showWarningMessage(`Delete the session "${item.label.replace(/^\$\(history\) /, '')}"? Its history is removed.`, { modal: true }, 'Delete');
      try {
        if (sure === 'Delete') {
          await agent.request(acp.methods.agent.session.delete, { sessionId: item.sessionId });
          qp.items = await list();
        }
      } catch (err) {
        void vscode.window.showErrorMessage(`Chimera could not delete the session: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        busy = false;
        qp.ignoreFocusOut = false;
        qp.show();
      }
    });
    qp.onDidAccept(() => {
      resolve(qp.selectedItems[0]?.sessionId);
      qp.dispose();
    });
    qp.onDidHide(() => {
      if (busy) return; // the confirmation took the focus
      resolve(undefined);
      qp.dispose();
    });
    qp.show();
  });
}

/** Asks for the new title (the current one filled in) and renames; an error is shown, never thrown. */
async function rename(agent: acp.ClientContext, item: Pick): Promise<void> {
  const current = item.label.replace(/^\$\([a-z-]+\) /, '');
  const title = await vscode.window.showInputBox({
    title: 'Rename the session',
    value: current,
    prompt: 'One line, up to 200 characters',
    validateInput: (v) => (v.trim() === '' ? 'The title is empty' : v.trim().length > 200 ? 'At most 200 characters' : undefined),
  });
  if (title === undefined || title.trim() === current) return;
  try {
    await agent.request('_ferret/session/rename', { sessionId: item.sessionId, title });
  } catch (err) {
    void vscode.window.showErrorMessage(`Chimera could not rename the session: ${err instanceof Error ? err.message : String(err)}`);
  }
}
