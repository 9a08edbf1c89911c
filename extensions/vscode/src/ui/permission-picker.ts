import * as vscode from 'vscode';
import type { PermissionItem, PermissionPrompt } from '../model/permission-prompt.js';

type Pick = vscode.QuickPickItem & { item: PermissionItem };

/**
 * The permission question as a quick pick. Resolves with the chosen item; 'dismissed' when the
 * person pressed Escape; 'withdrawn' when the server withdrew the question (`signal`: the turn was
 * stopped, or another client answered first).
 */
export function pickPermission(p: PermissionPrompt, signal: AbortSignal): Promise<PermissionItem | 'dismissed' | 'withdrawn'> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<Pick>();
    qp.title = p.title;
    qp.placeholder = p.detail ? `${p.detail} (allow / always / deny / never)` : 'allow / always / deny / never';
    qp.items = p.items.map((item) => ({ label: item.label, description: item.description, item }));
    qp.ignoreFocusOut = true; // a click into the chat must not count as an answer
    let settled = false;
    const done = (r: PermissionItem | 'dismissed' | 'withdrawn') => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(r);
      qp.dispose();
    };
    const onAbort = () => done('withdrawn');
    signal.addEventListener('abort', onAbort, { once: true });
    qp.onDidAccept(() => {
      const chosen = qp.selectedItems[0]?.item;
      if (chosen) done(chosen);
    });
    qp.onDidHide(() => done('dismissed'));
    if (signal.aborted) return done('withdrawn');
    qp.show();
  });
}
