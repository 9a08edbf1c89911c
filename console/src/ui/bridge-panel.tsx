// The cloud bridge's state in a session's sidebar (docs/cloud-bridge.md): shown only when ferret
// dials a relay. Attached or not, the devices connected, the last error, and the pairing link
// behind a disclosure. (The QR code is on ferret's stderr: a QR encoder would double the
// console's script, past its budget in docs/console.md.)
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { NotifyToggle } from './notify-toggle.js';

interface BridgeStatus {
  attached: boolean;
  relay: string | null;
  pairingUrl: string | null;
  devices: number;
  lastError: string | null;
  reconnects: number;
}

const POLL_MS = 5000;

export function BridgePanel({ sessionId }: { sessionId: string }) {
  const [status, setStatus] = useState<BridgeStatus | undefined>();
  useEffect(() => {
    let live = true;
    const read = () =>
      api<BridgeStatus>('GET', `/session/${encodeURIComponent(sessionId)}/bridge`).then(
        (s) => live && setStatus(s),
        () => undefined,
      );
    void read();
    const t = setInterval(() => void read(), POLL_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [sessionId]);
  if (!status?.relay) return null;
  return (
    <section class="bridge" aria-labelledby="bridge-title" data-bridge={status.attached ? 'attached' : 'detached'}>
      <h2 id="bridge-title">Remote access</h2>
      <dl class="usage">
        <dt>Relay</dt>
        <dd>
          <code>{new URL(status.relay).host}</code>
        </dd>
        <dt>State</dt>
        <dd>{status.attached ? 'attached' : `reconnecting (${status.reconnects})`}</dd>
        <dt>Devices</dt>
        <dd data-devices>{status.devices}</dd>
        {status.lastError && (
          <>
            <dt>Last error</dt>
            <dd>{status.lastError}</dd>
          </>
        )}
      </dl>
      <NotifyToggle />
      {status.pairingUrl && (
        <details>
          <summary>Pair a device</summary>
          <p class="hint">Open this link on the device (it is a password until used; ferret's terminal shows it as a QR code too):</p>
          <code class="pair-link" data-pairing>
            {status.pairingUrl}
          </code>
        </details>
      )}
    </section>
  );
}
