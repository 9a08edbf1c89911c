// `chimera ferret bridge pair|devices|revoke ID`: the bridge's devices, kept under CHIMERA_HOME
// (transports/bridge/identity.ts). A running server sees the change at once (it watches the file).
import { loadIdentity, revokeDevice, rotatePairing, routeOf } from '../transports/bridge/identity.js';
import { pairingUrl, relayUrlProblem } from '../core/index.js';
import { terminalQr } from './qr.js';

export function bridgeCommand(action: string, arg: string | undefined, home: string, relayFlag: string | undefined, out: (s: string) => void, err: (s: string) => void): number {
  if (action === 'pair') {
    const problem = relayFlag !== undefined ? relayUrlProblem(relayFlag) : undefined;
    if (problem) {
      err(`chimera ferret bridge pair: --relay: ${problem}\n`);
      return 2;
    }
    const relay = relayFlag ?? loadIdentity(home).relay;
    if (!relay) {
      err('chimera ferret bridge pair: no relay known yet: give --relay wss://HOST, or start `chimera ferret serve --bridge wss://HOST` once\n');
      return 2;
    }
    // A new secret each time: a link shown earlier (a screenshot, a chat) stops pairing anyone.
    const id = rotatePairing(home);
    const link = pairingUrl(relay, routeOf(id.routeKey), id.pairing);
    err(`ferret bridge: to pair a device, open ${link}\n${terminalQr(link)}`);
    return 0;
  }
  if (action === 'devices') {
    const { devices } = loadIdentity(home);
    if (devices.length === 0) out('no paired devices\n');
    for (const d of devices) out(`${d.id}\t${d.name}\tpaired ${d.pairedAt}${d.push ? '\tnotifications on' : ''}\n`);
    return 0;
  }
  if (action === 'revoke') {
    if (!arg) {
      err('chimera ferret bridge revoke: which device? give its id (see `chimera ferret bridge devices`)\n');
      return 2;
    }
    if (!revokeDevice(home, arg)) {
      err(`chimera ferret bridge revoke: no device ${arg} (see \`chimera ferret bridge devices\`)\n`);
      return 1;
    }
    out(`revoked ${arg}; the pairing link changed too (\`chimera ferret bridge pair\` shows the new one)\n`);
    return 0;
  }
  err(`chimera ferret bridge: unknown action '${action}': pair, devices or revoke ID\n`);
  return 2;
}
