// Builds `window.splitbook` from the plain name lists: one function per contract method, a typed `on`.
import type { IpcRenderer, IpcRendererEvent } from 'electron';
import type { Bridge } from '../shared/contract';
import { EVENT_CHANNEL, EVENT_NAMES, METHOD_NAMES } from '../shared/channels';

type Listener = (payload: unknown) => void;

/**
 * Each method invokes exactly its own channel with exactly one argument; `on` accepts only the
 * contract's event names. The renderer never sees ipcRenderer, an IPC event or a generic invoke.
 */
export function buildBridge(ipc: Pick<IpcRenderer, 'invoke' | 'on'>): Bridge {
  const methods: Record<string, Record<string, (input: unknown) => Promise<unknown>>> = {};
  for (const [namespace, names] of Object.entries(METHOD_NAMES)) {
    const functions: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const name of names) {
      const channel = `${namespace}.${name}`;
      functions[name] = (input) => ipc.invoke(channel, input);
    }
    methods[namespace] = functions;
  }

  // One IPC listener for all subscriptions; each event's listeners in a set.
  const listeners = new Map<string, Set<Listener>>(
    EVENT_NAMES.map((name) => [name, new Set<Listener>()]),
  );
  ipc.on(EVENT_CHANNEL, (_event: IpcRendererEvent, name: unknown, payload: unknown) => {
    if (typeof name !== 'string') return;
    for (const listener of listeners.get(name) ?? []) listener(payload);
  });

  function on(event: string, listener: Listener): () => void {
    const set = listeners.get(event);
    if (!set) throw new TypeError(`Unknown event "${String(event)}"`);
    if (typeof listener !== 'function') throw new TypeError('The listener must be a function');
    // A fresh wrapper per subscription, so subscribing one function twice needs two unsubscribes.
    const entry: Listener = (payload) => listener(payload);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  // The contract's Bridge type is what these lists spell out; the name lists are checked against
  // the contract in test/hosts/channels.test.ts, which is what makes this one cast honest.
  return { ...methods, on } as unknown as Bridge;
}
