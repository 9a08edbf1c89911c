// "Notify me": Web Push for this browser, offered in the Remote access panel of a console opened
// through the bridge. It registers the service worker (/sw.js), subscribes with ferret's VAPID
// key and hands the subscription to ferret through the encrypted tunnel, never to the relay.
// ferret then pushes when a permission waits or a turn ends with no console open (docs/cloud-bridge.md).
import { useEffect, useState } from 'preact/hooks';
import { bridgeTunnel } from '../bridge.js';

type State = 'unknown' | 'off' | 'on' | 'busy' | 'blocked';

const supported = (): boolean => 'serviceWorker' in navigator && 'PushManager' in globalThis && 'Notification' in globalThis;

async function current(): Promise<PushSubscription | null> {
  const reg = await navigator.serviceWorker.getRegistration('/');
  return (await reg?.pushManager.getSubscription()) ?? null;
}

/** How long the browser's push service gets to hand out a subscription before the console says so. */
const SUBSCRIBE_TIMEOUT_MS = 15_000;

/**
 * The browser's push subscription, or an error that says what went wrong. The browser asks its
 * vendor's push service for it: private windows refuse at once ("Registration failed -
 * permission denied" in Chromium), and a browser that cannot reach its push service (offline, or
 * a Chromium build without Google's keys) may never answer, which would leave the button busy.
 */
async function subscribe(reg: ServiceWorkerRegistration, key: string): Promise<PushSubscription> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the browser's push service did not answer in ${SUBSCRIBE_TIMEOUT_MS / 1000} s; it may be unreachable from this device (some Chromium builds have none)`)),
      SUBSCRIBE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }), late]);
  } catch (err) {
    if (err instanceof DOMException) throw new Error(`this browser refused a push subscription (${err.message}); private windows cannot receive push messages`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function turnOn(): Promise<void> {
  const tunnel = bridgeTunnel();
  if (!tunnel?.pushKey) throw new Error('not connected to ferret yet; try again in a moment');
  if ((await Notification.requestPermission()) !== 'granted') throw new Error('notifications are blocked for this site in the browser settings');
  const reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  await navigator.serviceWorker.ready;
  // A subscription made for another key (a new ferret identity) cannot carry ours.
  const old = await reg.pushManager.getSubscription();
  if (old) await old.unsubscribe();
  const sub = await subscribe(reg, tunnel.pushKey);
  await tunnel.setPush(sub.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } });
}

async function turnOff(): Promise<void> {
  await bridgeTunnel()?.setPush(null);
  await (await current())?.unsubscribe();
}

export function NotifyToggle() {
  const [state, setState] = useState<State>('unknown');
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    if (!bridgeTunnel() || !supported()) return;
    if (Notification.permission === 'denied') setState('blocked');
    else void current().then((s) => setState(s ? 'on' : 'off'), () => setState('off'));
  }, []);
  if (!bridgeTunnel() || !supported() || state === 'unknown') return null;
  const flip = (on: boolean) => {
    setState('busy');
    setError(undefined);
    (on ? turnOn() : turnOff()).then(
      () => setState(on ? 'on' : 'off'),
      (err: unknown) => {
        setError(err instanceof Error ? err.message : String(err));
        setState(Notification.permission === 'denied' ? 'blocked' : on ? 'off' : 'on');
      },
    );
  };
  return (
    <div class="notify" data-notify={state}>
      {state === 'on' ? (
        <button type="button" onClick={() => flip(false)}>
          Stop notifications
        </button>
      ) : (
        <button type="button" disabled={state === 'busy' || state === 'blocked'} onClick={() => flip(true)}>
          Notify me
        </button>
      )}
      <p class="hint">
        {state === 'blocked'
          ? 'Notifications are blocked for this site in the browser settings.'
          : 'A notification when ferret waits for your answer, or finishes while this console is closed. It says which session, never what it does.'}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
