// Builds `window.splitbook` from the plain name lists: one function per contract method, a typed `on`.
import type { IpcRenderer, IpcRendererEvent } from 'electron';
import type { Bridge, EventName, EventPayload } from '#shared/contract/index';
import { EVENT_CHANNEL, EVENT_NAMES, METHOD_NAMES } from '#shared/channels';
import { createProxy } from '#shared/rpc';

type Listener = (payload: unknown) => void;

/**
 * Each method invokes exactly its own channel with exactly one argument; `on` accepts only the
 * contract's event names. The renderer never sees ipcRenderer, an IPC event or a generic invoke.
 */
export function buildBridge(ipc: Pick<IpcRenderer, 'invoke' | 'on'>): Bridge {
  const methods = createProxy<Omit<Bridge, 'on'>>(METHOD_NAMES, (channel, input) =>
    ipc.invoke(channel, input),
  );

  // One IPC listener for all subscriptions; each event's listeners in a set.
  const listeners = new Map<string, Set<Listener>>(
    EVENT_NAMES.map((name) => [name, new Set<Listener>()]),
  );
  ipc.on(EVENT_CHANNEL, (_event: IpcRendererEvent, name: unknown, payload: unknown) => {
    if (typeof name !== 'string') return;
    for (const listener of listeners.get(name) ?? []) listener(payload);
  });

  function on<E extends EventName>(
    event: E,
    listener: (payload: EventPayload<E>) => void,
  ): () => void {
    const set = listeners.get(event);
    if (!set) throw new TypeError(`Unknown event "${String(event)}"`);
    if (typeof listener !== 'function') throw new TypeError('The listener must be a function');
    // A fresh wrapper per subscription, so subscribing one function twice needs two unsubscribes.
    // Main sends only the core's typed events under their own names (hosts/electron/ipc.ts).
    const entry: Listener = (payload) => listener(payload as EventPayload<E>);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  return { ...methods, on };
}
