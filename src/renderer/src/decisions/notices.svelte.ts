// "Ready for a call" in the window: a background sync changed calls of a store. Told once, without taking
// focus: the system's notification when this page may show one (the browser host, once the user allowed
// it), otherwise a toast in the window. Opening it lands on the Decisions view, or on the test it names.
// The Electron host shows its own notification and sends `decisions.open` when it is clicked.
import type { DecisionsReady } from '#shared/contract/index';
import { readyNotice, type ReadyNotice } from '#shared/domain/ready-notice';
import { getBridge } from '../lib/bridge';
import { nav } from '../lib/navigation.svelte';
import { decisionList } from './decisionList.svelte';

export type Toast = ReadyNotice & { id: number; storeId: string };

/** Toasts kept at once; an older one gives way to a newer. */
const MAX_TOASTS = 3;

/** Whether this page may show the system's notifications (the user allowed them). */
export function systemNotices(): 'granted' | 'denied' | 'default' | 'unsupported' {
  return 'Notification' in window ? Notification.permission : 'unsupported';
}

class Notices {
  toasts = $state.raw<Toast[]>([]);
  #next = 1;

  tell(ready: DecisionsReady): void {
    const notice = readyNotice(ready);
    if (systemNotices() === 'granted') {
      try {
        const shown = new Notification(notice.title, {
          body: notice.body,
          tag: `ready-${ready.storeId}`,
        });
        shown.onclick = () => {
          window.focus();
          shown.close();
          openDecisions(ready.storeId, notice.testId);
        };
        return;
      } catch {
        // A browser that refuses page notifications after all: the toast says it instead.
      }
    }
    this.toasts = [...this.toasts, { ...notice, id: this.#next++, storeId: ready.storeId }].slice(
      -MAX_TOASTS,
    );
  }

  dismiss(id: number): void {
    this.toasts = this.toasts.filter((toast) => toast.id !== id);
  }

  open(toast: Toast): void {
    this.dismiss(toast.id);
    openDecisions(toast.storeId, toast.testId);
  }
}

export const notices = new Notices();

/** The Decisions view, of the store's scope when another store is shown, with the test selected if named. */
export function openDecisions(storeId: string, testId: string | null): void {
  if (nav.scope !== null && nav.scope !== storeId) nav.selectScope(storeId);
  decisionList.filter = null;
  nav.view = 'decisions';
  if (testId !== null) nav.test = { storeId, testId };
}

/** Follows the notices and the host's "open" (a clicked desktop notification); returns the unsubscribe. */
export function followNotices(): () => void {
  const bridge = getBridge();
  const offs = [
    bridge.on('decisions.ready', (ready) => notices.tell(ready)),
    bridge.on('decisions.open', ({ storeId, testId }) => {
      if (storeId === null) nav.view = 'decisions';
      else openDecisions(storeId, testId);
    }),
  ];
  return () => offs.forEach((off) => off());
}
