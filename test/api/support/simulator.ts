// The simulator served on loopback with one read-write and one read-only key, and clients for it.
import { createApiClient, type ApiClient, type ApiClientOptions } from '#core/api/index';
import {
  createSimulator,
  serveSimulator,
  type Simulator,
  type SimulatorOptions,
} from '#simulator/index';

export const STORE = 'Acme Outdoor';
export const API_KEY = 'sk_test_SeCrEt_0123456789abcdef0123456789abcdef';
export const READ_ONLY_KEY = 'sk_test_ReadOnly_fedcba9876543210fedcba9876543210';

export interface ServedSim {
  sim: Simulator;
  url: string;
  /** A client of the read-write key; retries wait milliseconds, not seconds. */
  client(options?: Partial<ApiClientOptions>): ApiClient;
  close(): Promise<void>;
}

export async function serveSim(options: SimulatorOptions = {}): Promise<ServedSim> {
  const sim = createSimulator({
    seed: 7,
    stores: [
      { name: STORE, apiKey: API_KEY, tests: 30 },
      { name: STORE, apiKey: READ_ONLY_KEY, readOnly: true },
    ],
    ...options,
  });
  const server = await serveSimulator(sim, { port: 0 });
  return {
    sim,
    url: server.url,
    client: (overrides = {}) =>
      createApiClient({ baseUrl: server.url, apiKey: API_KEY, maxBackoffMs: 20, ...overrides }),
    close: () => server.close(),
  };
}
