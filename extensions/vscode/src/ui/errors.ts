import * as vscode from 'vscode';
import type { ShownError } from '../model/server-errors.js';

/** An error message with the buttons that help: the setting to change, or the server log. */
export async function showError(e: ShownError, log: vscode.LogOutputChannel): Promise<void> {
  log.error(e.text);
  const picked = await vscode.window.showErrorMessage(e.text, ...e.actions.map((a) => a.label));
  const action = e.actions.find((a) => a.label === picked);
  if (!action) return;
  if (action.label === 'Show Log') log.show(true);
  else await vscode.commands.executeCommand('workbench.action.openSettings', action.setting);
}
