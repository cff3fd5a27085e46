// The demo store: the simulator run in-process, so a new user sees a full app with no key and no network.
import { createSimulator } from '#simulator/index';

export interface DemoStore {
  name: string;
  baseUrl: string;
  apiKey: string;
  /** A fetch answered by the in-process simulator: no socket, no port. */
  fetch: typeof fetch;
}

export const DEMO_STORE_NAME = 'Demo store';

export function createDemoStore(options: {
  clock: () => number;
  tests?: number;
  seed?: number;
}): DemoStore {
  const simulator = createSimulator({
    seed: options.seed ?? 2026,
    stores: [{ name: DEMO_STORE_NAME, tests: options.tests ?? 400 }],
    now: options.clock,
    rate: null,
  });
  const [store] = simulator.stores;
  if (!store) throw new Error('The demo simulator has no store');
  return {
    name: store.name,
    baseUrl: simulator.baseUrl,
    apiKey: store.apiKey,
    fetch: simulator.fetch,
  };
}
