// The Electron side of background syncs: the network as Chromium sees it (net.isOnline, asked every few
// seconds since it has no event), the machine waking from sleep (powerMonitor 'resume'), and "ready for a
// call" as a desktop notification from the main process, whose click brings the window forward on the
// Decisions view (or the test it names).
import type { Core } from '#core/index';
import type { ChannelEventName } from '#shared/channels';
import type { AppEvent, CoreEvent, DecisionsReady } from '#shared/contract/index';
import { readyNotice } from '#shared/domain/ready-notice';

/** How often net.isOnline() is asked. */
export const ONLINE_POLL_MS = 5_000;

export interface MachineDeps {
  net: { isOnline(): boolean };
  powerMonitor: { on(event: 'resume', listener: () => void): unknown };
  setInterval?: (callback: () => void, ms: number) => ReturnType<typeof setInterval>;
  clearInterval?: (handle: ReturnType<typeof setInterval>) => void;
}

/** Tells the core's background syncs when the network goes or comes back, and when the machine woke. */
export function followMachine(core: Pick<Core, 'background'>, deps: MachineDeps): () => void {
  let online = deps.net.isOnline();
  core.background.connectivity(online);
  const look = () => {
    const now = deps.net.isOnline();
    if (now === online) return;
    online = now;
    core.background.connectivity(now);
  };
  const poll = (deps.setInterval ?? setInterval)(look, ONLINE_POLL_MS);
  poll.unref?.();
  deps.powerMonitor.on('resume', () => {
    // Every store syncs once the network answers: right away when it does, else when it comes back.
    look();
    core.background.wake();
  });
  return () => (deps.clearInterval ?? clearInterval)(poll);
}

/** The little of Electron's Notification used here. */
export interface NotificationLike {
  on(event: 'click' | 'close', listener: () => void): unknown;
  show(): void;
}
export interface NotificationClass {
  new (options: { title: string; body: string }): NotificationLike;
  isSupported(): boolean;
}

export interface NoticeDeps {
  Notification: NotificationClass;
  /** Brings the window forward (restored, shown, focused), opening one if there is none. */
  focusWindow(): void;
  /** Sends an event to the window's renderer. */
  send(event: ChannelEventName, payload: AppEvent['payload']): void;
}

/**
 * Shows each decisions.ready as a desktop notification. Returns the filter of events the window is then
 * not sent (it would show them again as a toast) and the unsubscribe. Subscribe it before the events
 * are forwarded to the window.
 */
export function notifyReadyCalls(
  core: Pick<Core, 'subscribe'>,
  deps: NoticeDeps,
): { shownHere(event: CoreEvent): boolean; stop(): void } {
  const supported = () => {
    try {
      return deps.Notification.isSupported();
    } catch {
      return false;
    }
  };
  // A notification nobody holds may be collected before it is clicked.
  const live = new Set<NotificationLike>();
  /** The events shown here, so the window is not sent them too (subscribed before the forwarding). */
  const shown = new WeakSet<object>();
  function show(ready: DecisionsReady): void {
    const notice = readyNotice(ready);
    const notification = new deps.Notification({ title: notice.title, body: notice.body });
    live.add(notification);
    notification.on('close', () => live.delete(notification));
    notification.on('click', () => {
      live.delete(notification);
      deps.focusWindow();
      deps.send('decisions.open', { storeId: ready.storeId, testId: notice.testId });
    });
    notification.show();
    shown.add(ready);
  }
  const stop = core.subscribe((event) => {
    if (event.name !== 'decisions.ready' || !supported()) return;
    try {
      show(event.payload);
    } catch (error) {
      // The window shows it instead.
      console.error('[splitbook] could not show a notification:', error);
    }
  });
  return {
    shownHere: (event) => event.name === 'decisions.ready' && shown.has(event.payload),
    stop,
  };
}
