// A tiny in-test Core built from the contract: every method echoes its parsed input unless a test gives it a behaviour.
// It pins the hosts' translation layer (what reaches the core, what comes back) without a database.
import { contract, type CoreEvent, type Services } from '#shared/contract/index';
import type { Core, CoreEventListener } from '#core/types';

type Behaviour = (input: unknown) => Promise<unknown>;

export function createTestCore(behaviours: Record<string, Behaviour> = {}) {
  const calls: { channel: string; input: unknown }[] = [];
  const listeners = new Set<CoreEventListener>();
  const table: Record<string, Record<string, Behaviour>> = {};
  for (const [namespace, methods] of Object.entries(contract)) {
    table[namespace] = {};
    for (const name of Object.keys(methods)) {
      const channel = `${namespace}.${name}`;
      table[namespace][name] = async (input) => {
        calls.push({ channel, input });
        const behaviour = behaviours[channel];
        return behaviour ? behaviour(input) : { echo: channel, input };
      };
    }
  }
  let closed = false;
  /** What the host told the core's background syncs, in order. */
  const background: string[] = [];
  const core: Core = {
    // The echoing table has the Services shape but not its output types; the hosts never look inside outputs.
    services: table as unknown as Services,
    reports: {
      write: async () => 0,
      writeFile: async () => 0,
      client: async () => ({
        content: '',
        fileName: 'report.html',
        tests: 0,
        period: { since: '', until: '' },
      }),
    },
    data: {
      backup: async () => Promise.reject(new Error('no backups in the test core')),
      inspect: async () => Promise.reject(new Error('no backups in the test core')),
      restore: async () => Promise.reject(new Error('no backups in the test core')),
    },
    background: {
      windowReady: () => void background.push('windowReady'),
      connectivity: (online) => void background.push(online ? 'online' : 'offline'),
      wake: () => void background.push('wake'),
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    // No other process writes a test core's stores: nothing to watch.
    watchStores: () => () => undefined,
    async close() {
      closed = true;
    },
  };
  return {
    core,
    calls,
    background,
    emit(event: CoreEvent) {
      for (const listener of listeners) listener(event);
    },
    listenerCount: () => listeners.size,
    isClosed: () => closed,
  };
}
