// The stores the core knows: their rows, and an API client per store that shares the store's limiter.
import { problem } from '#shared/problem';
import { createApiClient, createRequestLimiter, type ApiClient, type RequestLimiter } from '../api';
import { getStoreRow, listStoreRows, saveLearnedRate } from '../db/cache/stores';
import type { Db, StoreRow } from '../db/types';
import type { DemoStore } from './demo';
import type { KeyRing } from './keys';

/**
 * Requests of one store in flight at once. A store's rate limit is only reached with rate × round trip
 * requests under way: 50 requests/s at round trips of 40–120 ms needs about 6, so 4 left a quarter of
 * the limit unused (bench/sync.bench.ts); the limiter still paces them to the rate.
 */
export const STORE_REQUESTS_IN_FLIGHT = 8;

export const DEMO_STORE_ID = 'demo';

export interface StoreRegistryDeps {
  db: Db;
  /** Only reading a key: saving and forgetting keys is the main thread's (services/stores.ts). */
  keys: Pick<KeyRing, 'get'>;
  fetch: typeof fetch;
  /** The in-process demo store, created on first use. */
  demoStore: () => DemoStore;
}

export interface StoreRegistry {
  /** The store's row; a not-found problem when there is none. */
  row(storeId: string): StoreRow;
  rows(): StoreRow[];
  /** The store's API client with its own limiter. Throws a ProblemError when no key is at hand. */
  clientFor(storeId: string): Promise<ApiClient>;
  /** Drops a store's cached client and limiter (its key or address changed, or it is gone). */
  forget(storeId: string): void;
  /** Keeps the pace the store's limiter has learnt, so the next run (even after a restart) starts there. */
  rememberRate(storeId: string): void;
  demoStore: () => DemoStore;
}

export function createStoreRegistry(deps: StoreRegistryDeps): StoreRegistry {
  // One limiter per store for the life of the core, so every request of a store shares its pace.
  const limiters = new Map<string, RequestLimiter>();
  const clients = new Map<string, { key: string; client: ApiClient }>();

  function row(storeId: string): StoreRow {
    const found = getStoreRow(deps.db, storeId);
    if (!found)
      throw problem('notFound', 404, 'Store not found', `There is no store with id ${storeId}.`);
    return found;
  }

  function cachedClient(store: StoreRow, key: string, baseUrl: string, f: typeof fetch): ApiClient {
    const storeId = store.id;
    const cached = clients.get(storeId);
    if (cached && cached.key === key) return cached.client;
    let limiter = limiters.get(storeId);
    if (!limiter) {
      // A store's limit rarely changes between runs: starting cold wasted the first seconds of each.
      // The learnt pace is where a run starts, not a ceiling: the limit may have risen since.
      limiter = createRequestLimiter({
        startRatePerSecond: store.learnedRate,
        concurrency: STORE_REQUESTS_IN_FLIGHT,
      });
      limiters.set(storeId, limiter);
    }
    const client = createApiClient({ baseUrl, apiKey: key, fetch: f, limiter });
    clients.set(storeId, { key, client });
    return client;
  }

  return {
    row,
    rows: () => listStoreRows(deps.db),
    async clientFor(storeId) {
      const store = row(storeId);
      if (store.kind === 'demo') {
        const demo = deps.demoStore();
        return cachedClient(store, demo.apiKey, demo.baseUrl, demo.fetch);
      }
      return cachedClient(
        store,
        await deps.keys.get(storeId, store.name),
        store.baseUrl,
        deps.fetch,
      );
    },
    rememberRate(storeId) {
      // The pace settled at the last 429, not the probe above it that ended the run: the next run
      // starts under the limit rather than into it.
      const rate = limiters.get(storeId)?.stats().settledRatePerSecond ?? null;
      if (rate !== null && getStoreRow(deps.db, storeId)) saveLearnedRate(deps.db, storeId, rate);
    },
    forget(storeId) {
      clients.delete(storeId);
      limiters.delete(storeId);
    },
    demoStore: deps.demoStore,
  };
}
