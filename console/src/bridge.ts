// The console opened from a cloud-bridge relay (docs/cloud-bridge.md): with a pairing link
// (`#pair=ROUTE.SECRET`) or a device paired before, every call the console makes (api.ts,
// stream.ts: all plain `fetch`) goes through the end-to-end encrypted tunnel to ferret instead
// of to the page's own origin, which is the relay and knows none of it. The secret leaves the
// address bar at once; the device key it earns is kept in this browser's localStorage.
import { BridgeTunnel, parsePairingLink, type BridgeDevice } from '../../clients/typescript/src/bridge.mjs';

const STORE = 'ferret.bridge';

interface Stored {
  route: string;
  device: BridgeDevice;
}

function stored(): Stored | undefined {
  try {
    const s = JSON.parse(localStorage.getItem(STORE) ?? 'null') as Stored | null;
    return s && typeof s.route === 'string' && typeof s.device?.key === 'string' ? s : undefined;
  } catch {
    return undefined;
  }
}

let current: BridgeTunnel | undefined;

/** The tunnel when this page is a bridged console (Web Push is offered only then). */
export const bridgeTunnel = (): BridgeTunnel | undefined => current;

/** Routes the page's fetch through the bridge when this page is a bridged console; false otherwise (served by ferret itself). */
export function installBridge(): boolean {
  const link = parsePairingLink(location.href);
  const kept = stored();
  if (!link && !kept) return false;
  const relay = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}`;
  const route = link?.route ?? kept!.route;
  // A link opened is a new pairing (the device it replaces may have been revoked); else the kept device.
  const tunnel = new BridgeTunnel({
    relay,
    route,
    ...(link ? { secret: link.secret } : { device: kept!.device }),
    name: `web console (${navigator.platform || 'browser'})`,
    onDevice: (device) => localStorage.setItem(STORE, JSON.stringify({ route, device } satisfies Stored)),
  });
  // The secret must not stay in the address bar, the history or a screenshot.
  if (link) history.replaceState(null, '', `${location.pathname}#/`);
  globalThis.fetch = tunnel.fetch;
  current = tunnel;
  return true;
}
