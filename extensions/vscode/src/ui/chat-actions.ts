import * as vscode from 'vscode';
import type { EditReview } from '../edits/review.js';
import type { ChimeraController } from '../session/controller.js';
import type { WebviewMessage } from '../webview/protocol.js';

/** What the person did in the chat view → the command it stands for. */
export function chatAction(m: WebviewMessage, c: ChimeraController, review: EditReview, reject: (path: string) => Promise<void>, showLog: () => void): void {
  switch (m.type) {
    case 'ready':
      return c.redraw();
    case 'prompt':
      return void c.prompt(m.text);
    case 'stop':
      return void c.stop();
    case 'config':
      return void c.setConfig(m.configId, m.value);
    case 'start':
      return void c.startSession();
    case 'resume':
      return void c.resumeSession();
    case 'showLog':
      return showLog();
    case 'review':
      return void review.open(m.path, false);
    case 'accept':
      return void review.accept(m.path);
    case 'reject':
      return void reject(m.path);
    case 'acceptAll':
      return void c.acceptAll(m.scope);
    case 'retry':
      return void c.retry(m.text);
    case 'settings':
      return void vscode.commands.executeCommand('workbench.action.openSettings', m.setting);
  }
}
