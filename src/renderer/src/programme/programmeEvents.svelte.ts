// When the programme's views reload: the backlog when an edit or a sync changes the ideas, the learnings
// when calls may have changed (a sync, one test's results, calls made again, the settings). A view
// subscribes while it is on screen; a burst of events makes one reload.
import type { EventName } from '../../../shared/contract';
import { getBridge } from '../lib/bridge';

const SETTLE_MS = 250;

export const BACKLOG_EVENTS: readonly EventName[] = [
  'edits.changed',
  'sync.finished',
  'stores.changed',
];
export const LEARNINGS_EVENTS: readonly EventName[] = [
  'sync.finished',
  'results.changed',
  'decisions.changed',
  'settings.changed',
  'stores.changed',
];

/** A version that goes up (settled) on each of `events`; `follow()` subscribes and returns the unsubscribe. */
export class EventVersion {
  value = $state(0);
  #timer: ReturnType<typeof setTimeout> | null = null;
  readonly #events: readonly EventName[];

  constructor(events: readonly EventName[]) {
    this.#events = events;
  }

  follow(): () => void {
    const bridge = getBridge();
    const offs = this.#events.map((name) => bridge.on(name, () => this.#bump()));
    return () => {
      offs.forEach((off) => off());
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = null;
    };
  }

  #bump() {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.value += 1;
    }, SETTLE_MS);
  }
}
