import { describe, expect, it } from 'vitest';
import { bridgeItem, readBridgeStatus } from '../../../extensions/vscode/src/model/bridge-view.js';

// `_ferret/bridgeStatus` → the status bar item, without VS Code.

describe('the bridge status bar item', () => {
  it('is hidden when ferret dials no relay, or answers something else', () => {
    expect(bridgeItem(readBridgeStatus({ attached: false, relay: null, pairingUrl: null, devices: 0, lastError: null, reconnects: 0 }))).toBeUndefined();
    expect(bridgeItem(readBridgeStatus({ attached: false }))).toBeUndefined();
    expect(readBridgeStatus(undefined)).toBeUndefined();
    expect(readBridgeStatus({ error: 'x' })).toBeUndefined();
  });

  it('shows attached with the devices connected, and the relay host in the tooltip', () => {
    const s = readBridgeStatus({ attached: true, relay: 'wss://relay.example.com:8443', pairingUrl: 'https://relay.example.com:8443/#pair=a.b', devices: 2, lastError: null, reconnects: 0 });
    expect(bridgeItem(s)).toEqual({ text: '$(broadcast) 2', tooltip: 'Remote access through relay.example.com:8443: 2 devices connected. Click to pair a device.' });
  });

  it('shows reconnecting with the attempts and the last error', () => {
    const s = readBridgeStatus({ attached: false, relay: 'wss://relay.example.com', pairingUrl: 'https://relay.example.com/#pair=a.b', devices: 0, lastError: 'connect ECONNREFUSED', reconnects: 3 });
    expect(bridgeItem(s)?.text).toBe('$(debug-disconnect) relay');
    expect(bridgeItem(s)?.tooltip).toBe('Remote access: reconnecting to relay.example.com (3 attempts). Last error: connect ECONNREFUSED. Click to pair a device.');
  });
});
