// The bridge as the browser host's page has it, for tests of the window's state: `on` listeners, and
// `emit` to deliver what the core would. Import it before any renderer module, which reads
// window.splitbook when it first subscribes.
import { vi } from 'vitest';
import type { EventName, EventPayload } from '#shared/contract/index';

type Listener = (payload: never) => void;

/** The listeners subscribed, by event name. */
export const listeners = new Map<string, Set<Listener>>();

vi.stubGlobal('window', {
  splitbook: {
    on(name: string, listener: Listener) {
      const set = listeners.get(name) ?? new Set();
      set.add(listener);
      listeners.set(name, set);
      return () => set.delete(listener);
    },
  },
});

/** Delivers an event to every listener of its name. */
export function emit<E extends EventName>(name: E, payload: EventPayload<E>): void {
  for (const listener of listeners.get(name) ?? [])
    (listener as (p: EventPayload<E>) => void)(payload);
}
