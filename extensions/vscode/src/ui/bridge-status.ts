// The cloud bridge in VS Code: a status bar item (attached or reconnecting, devices connected)
// while ferret dials a relay, and "Chimera: Pair a Device", which shows the pairing link to open
// on a phone. The link is a password until used: it is offered to copy or open, never logged.
import * as vscode from 'vscode';
import { bridgeItem, readBridgeStatus, type BridgeStatus } from '../model/bridge-view.js';

const POLL_MS = 10_000;

export class BridgeStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('chimera.bridge', vscode.StatusBarAlignment.Right, 100);
  private readonly timer: NodeJS.Timeout;

  /** `ask` answers `_ferret/bridgeStatus` for the current session, or undefined with none. */
  constructor(private readonly ask: () => Promise<unknown>) {
    this.item.name = 'Chimera remote access';
    this.item.command = 'chimera.pairDevice';
    this.timer = setInterval(() => void this.refresh(), POLL_MS);
  }

  async refresh(): Promise<BridgeStatus | undefined> {
    const status = readBridgeStatus(await this.ask().catch(() => undefined));
    const shown = bridgeItem(status);
    if (!shown) this.item.hide();
    else {
      this.item.text = shown.text;
      this.item.tooltip = shown.tooltip;
      this.item.show();
    }
    return status;
  }

  /** "Chimera: Pair a Device". */
  async pair(): Promise<void> {
    const status = await this.refresh();
    if (!status) {
      void vscode.window.showInformationMessage('Start a Chimera session first: the pairing link comes from its server.');
      return;
    }
    if (!status.relay || !status.pairingUrl) {
      void vscode.window.showInformationMessage('Remote access is off: start ferret with --bridge wss://RELAY (or "bridge": {"relay": …} in config.json). See docs/cloud-bridge.md.');
      return;
    }
    const state = status.attached ? `attached, ${status.devices} connected` : 'not attached to the relay now';
    const pick = await vscode.window.showInformationMessage(
      `Open this link on the device to pair it (${state}). It works like a password until used: do not paste it in a chat.`,
      { modal: true, detail: status.pairingUrl },
      'Copy Link',
      'Open in Browser',
    );
    if (pick === 'Copy Link') {
      await vscode.env.clipboard.writeText(status.pairingUrl);
      void vscode.window.showInformationMessage('Pairing link copied.');
    } else if (pick === 'Open in Browser') await vscode.env.openExternal(vscode.Uri.parse(status.pairingUrl));
  }

  dispose(): void {
    clearInterval(this.timer);
    this.item.dispose();
  }
}
