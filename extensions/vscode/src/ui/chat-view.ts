import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { ChatView } from '../model/chat-model.js';
import type { HostMessage, WebviewMessage } from '../webview/protocol.js';

export const CHAT_VIEW_ID = 'chimera.chat';

/**
 * The chat as a webview view (works in desktop VS Code and in VS Code in the browser). It renders
 * whatever state it is given; the person's actions come back as messages.
 */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private latest: ChatView | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onMessage: (m: WebviewMessage) => void,
  ) {
    this.subs.push(vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this, { webviewOptions: { retainContextWhenHidden: true } }));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    view.webview.html = html(view.webview, dist, media);
    this.subs.push(
      view.webview.onDidReceiveMessage((m: WebviewMessage) => {
        if (m.type === 'ready') this.flush();
        this.onMessage(m);
      }),
      view.onDidDispose(() => (this.view = undefined)),
    );
  }

  /** Shows the view (opening its container if needed). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** New state to show; bursts of streamed chunks are coalesced into one repaint per frame. */
  render(view: ChatView): void {
    this.latest = view;
    this.timer ??= setTimeout(() => this.flush(), 16);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.view || !this.latest) return;
    const msg: HostMessage = { type: 'state', view: this.latest };
    void this.view.webview.postMessage(msg);
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
  }
}

function html(webview: vscode.Webview, dist: vscode.Uri, media: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css'));
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`, `img-src ${webview.cspSource} data:`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Chimera</title>
</head>
<body>
<header id="toolbar">
  <div id="pickers"></div>
  <div id="session-actions">
    <button id="new" class="secondary" title="Start a new session">New</button>
    <button id="history" class="secondary" title="Resume a previous session">History</button>
  </div>
</header>
<main id="transcript" aria-live="polite"></main>
<div id="empty" class="empty">
  <p>Ask Chimera to change something in this workspace.</p>
  <p class="hint">Edits wait for your review; commands run in ferret's sandbox.</p>
</div>
<section id="review-bar" aria-label="Edits waiting for review" hidden></section>
<footer>
  <div id="status-line"><span id="usage"></span><span id="http"></span></div>
  <div id="queued" aria-live="polite"></div>
  <ul id="command-menu" role="listbox" aria-label="Slash commands" hidden></ul>
  <textarea id="prompt" rows="3" role="combobox" aria-controls="command-menu" aria-expanded="false" placeholder="Ask Chimera… (Enter to send, Shift+Enter for a new line, / for commands, Esc to stop)"></textarea>
  <div id="prompt-actions">
    <button id="stop" class="danger" disabled>Stop</button>
    <button id="send">Send</button>
  </div>
</footer>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}
