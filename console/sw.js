// The console's service worker: shows ferret's Web Push messages (docs/cloud-bridge.md, "Push
// notifications"). A message says only what happened and which session (no title, path or
// code); tapping it opens that session, through the bridge, in a console window.
/* global self, clients */
const TEXT = {
  permission: ['ferret is waiting for your answer', 'A tool needs your permission. Tap to review it.'],
  turn_end: ['ferret finished a turn', 'Tap to see the result.'],
};

// Take the console tabs already open (the one whose "Notify me" registered this worker among
// them): a tab this worker does not control cannot be navigated to a session from a notification.
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    /* not ours: shown as a plain notice below */
  }
  event.waitUntil(
    (async () => {
      // A console window in view already shows the question: no notification on top of it.
      const windows = await clients.matchAll({ type: 'window', includeUncontrolled: true });
      if (windows.some((w) => w.visibilityState === 'visible')) return;
      const [title, body] = TEXT[data.kind] ?? ['ferret', 'Something needs your attention.'];
      const session = typeof data.sessionId === 'string' ? data.sessionId : '';
      await self.registration.showNotification(title, {
        body: data.kind === 'turn_end' && data.stopReason && data.stopReason !== 'end_turn' ? `It stopped: ${data.stopReason}.` : body,
        tag: `${data.kind}:${session}`,
        renotify: data.kind === 'permission',
        requireInteraction: data.kind === 'permission',
        icon: '/assets/favicon.svg',
        data: { session },
      });
    })(),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const session = event.notification.data?.session;
  const url = new URL(session ? `/#/s/${encodeURIComponent(session)}` : '/#/', self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
      if (open) {
        await open.focus();
        // navigate() refuses a tab this worker does not control: then a new window for the session.
        const moved = await open.navigate(url).catch(() => null);
        if (moved) return moved;
      }
      return clients.openWindow(url);
    })(),
  );
});
