// The cloud bridge's state as the status bar shows it (docs/cloud-bridge.md), from ferret's
// `_ferret/bridgeStatus` answer. Nothing shows while ferret dials no relay.

export interface BridgeStatus {
  attached: boolean;
  relay: string | null;
  pairingUrl: string | null;
  devices: number;
  lastError: string | null;
  reconnects: number;
}

/** The answer as ferret gives it, or undefined when it is not one (an older server, an error). */
export function readBridgeStatus(raw: unknown): BridgeStatus | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r['attached'] !== 'boolean') return undefined;
  const str = (k: string) => (typeof r[k] === 'string' ? r[k] : null);
  const num = (k: string) => (typeof r[k] === 'number' ? r[k] : 0);
  return { attached: r['attached'], relay: str('relay'), pairingUrl: str('pairingUrl'), devices: num('devices'), lastError: str('lastError'), reconnects: num('reconnects') };
}

const host = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** The status bar item's text and tooltip; undefined hides it (no relay configured). */
export function bridgeItem(s: BridgeStatus | undefined): { text: string; tooltip: string } | undefined {
  if (!s?.relay) return undefined;
  const devices = `${s.devices} device${s.devices === 1 ? '' : 's'} connected`;
  if (s.attached) return { text: `$(broadcast) ${s.devices}`, tooltip: `Remote access through ${host(s.relay)}: ${devices}. Click to pair a device.` };
  const why = s.lastError ? ` Last error: ${s.lastError}.` : '';
  return { text: '$(debug-disconnect) relay', tooltip: `Remote access: reconnecting to ${host(s.relay)} (${s.reconnects} attempt${s.reconnects === 1 ? '' : 's'}).${why} Click to pair a device.` };
}
