import * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { ferretMeta } from '../model/ferret-meta.js';
import { sessionItems } from '../model/session-items.js';

const LAST = 'chimera.lastSessionId';

/** Remembered per workspace, so the next window can offer it first. */
export function rememberSession(state: vscode.Memento, sessionId: string): Thenable<void> {
  return state.update(LAST, sessionId);
}

/** The quick pick of this workspace's sessions (session/list), newest first, the last one marked. */
export async function pickSession(agent: acp.ClientContext, cwd: string, state: vscode.Memento): Promise<string | undefined> {
  const r = await agent.request(acp.methods.agent.session.list, { cwd });
  const items = sessionItems(
    r.sessions.map((s) => ({ ...s, meta: ferretMeta<{ costUsd?: number; model?: string }>(s._meta) })),
    state.get<string>(LAST),
    new Date(),
  );
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Chimera has no earlier sessions in this folder.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'Chimera: resume a session', placeHolder: 'Pick a session to load its history', matchOnDescription: true });
  return picked?.sessionId;
}
