import * as vscode from 'vscode';

/**
 * Asks why an edit is rejected (optional: the agent is told). Enter with nothing typed rejects
 * without a reason; Escape keeps the edit pending (undefined).
 */
export async function askRejectReason(label: string): Promise<{ reason?: string } | undefined> {
  const typed = await vscode.window.showInputBox({
    title: `Reject the change to ${label}`,
    prompt: 'Why? (optional; Chimera is told, so it can try another way). Escape keeps the change pending.',
    placeHolder: 'e.g. keep the old function name',
    ignoreFocusOut: true,
  });
  if (typed === undefined) return undefined;
  return typed.trim() ? { reason: typed.trim() } : {};
}
