// The core: one database, the key ring, the sync engine and every contract service, free of any host.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreEvent, Services } from '../../shared/contract';
import { problem } from '../../shared/problem';
import { createApiClient, createRequestLimiter, type ApiClient, type RequestLimiter } from './api';
import type { Core, CoreEventListener } from './types';
import { openDatabase } from './db';
import { createMemorySecretStore, type KeychainStatus, type SecretStore } from './secrets';
import { createKeyRing } from './stores/keys';
import { createStoreServices } from './services/stores';
import { createQueryServices } from './services/reads';
import { createSyncEngine } from './sync/engine';
import { createStoreLocks } from './sync/store-lock';
import { createDemoStore, type DemoStore } from './demo';

export interface CoreDeps {
  /** Folder of the cache database; created if missing. */
  dataDir: string;
  /** The OS keychain (or a stand-in for it). */
  secrets: SecretStore;
  fetch?: typeof fetch;
  clock?: () => number;
  host: 'electron' | 'browser' | 'cli';
  version: string;
  /** Opens a validated http(s) link outside the app; hosts that cannot do so leave it out. */
  openExternal?: (url: string) => Promise<void>;
  /** Simulator settings of the demo store (tests shrink it). */
  demo?: { tests?: number; seed?: number };
}

export const DATABASE_FILE = 'splitbook.db';

export async function createCore(deps: CoreDeps): Promise<Core> {
  const clock = deps.clock ?? Date.now;
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  mkdirSync(deps.dataDir, { recursive: true });
  const db = openDatabase(join(deps.dataDir, DATABASE_FILE));

  const listeners = new Set<CoreEventListener>();
  function emit(event: CoreEvent): void {
    for (const listener of listeners) listener(event);
  }

  const keychainStatus: Promise<KeychainStatus> = deps.secrets.selfTest();
  const keys = createKeyRing(deps.secrets, createMemorySecretStore());
  let demo: DemoStore | null = null;
  const demoStore = () => (demo ??= createDemoStore({ clock, ...deps.demo }));

  // One limiter per store for the life of the core, so every request of a store shares its pace.
  const limiters = new Map<string, RequestLimiter>();
  const clients = new Map<string, { key: string; client: ApiClient }>();

  async function clientFor(storeId: string): Promise<ApiClient> {
    const store = stores.row(storeId);
    if (store.kind === 'demo') {
      const d = demoStore();
      return cachedClient(storeId, d.apiKey, d.baseUrl, d.fetch);
    }
    return cachedClient(storeId, await keys.get(storeId, store.name), store.baseUrl, fetchImpl);
  }

  function cachedClient(storeId: string, key: string, baseUrl: string, f: typeof fetch): ApiClient {
    const cached = clients.get(storeId);
    if (cached && cached.key === key) return cached.client;
    let limiter = limiters.get(storeId);
    if (!limiter) {
      limiter = createRequestLimiter();
      limiters.set(storeId, limiter);
    }
    const client = createApiClient({ baseUrl, apiKey: key, fetch: f, limiter });
    clients.set(storeId, { key, client });
    return client;
  }

  const engine = createSyncEngine({
    db,
    lock: createStoreLocks(deps.dataDir),
    clientFor,
    clock,
    onProgress: (progress) => emit({ name: 'sync.progress', payload: progress }),
    // One event per fact: the renderer refreshes its store list on 'sync.finished' itself.
    onFinished: (report) => emit({ name: 'sync.finished', payload: report }),
  });

  const stores = createStoreServices({
    db,
    keys,
    engine,
    clock,
    fetch: fetchImpl,
    demoStore,
    forgetClient: (storeId) => {
      clients.delete(storeId);
      limiters.delete(storeId);
    },
    changed: () => emit({ name: 'stores.changed', payload: {} }),
  });

  const queries = createQueryServices(db);
  const services: Services = {
    app: {
      async info() {
        return { version: deps.version, host: deps.host, keychain: await keychainStatus };
      },
      async openExternal({ url }) {
        if (!deps.openExternal) {
          throw problem('validation', 501, 'Opening links is not available here', 'Copy the link instead.');
        }
        await deps.openExternal(url);
        return null;
      },
    },
    stores: stores.services,
    sync: {
      async start({ storeId }) {
        stores.row(storeId);
        if (engine.isRunning(storeId)) return { started: false };
        void engine.run(storeId);
        emit({ name: 'stores.changed', payload: {} });
        return { started: true };
      },
      async startAll() {
        const started: string[] = [];
        for (const row of stores.rows()) {
          if (engine.isRunning(row.id)) continue;
          void engine.run(row.id);
          started.push(row.id);
        }
        if (started.length > 0) emit({ name: 'stores.changed', payload: {} });
        return { started };
      },
      async cancel({ storeId }) {
        return { cancelled: engine.cancel(storeId) };
      },
      issues: queries.issues,
    },
    tests: queries.tests,
    campaigns: queries.campaigns,
    audiences: queries.audiences,
    tags: queries.tags,
  };

  return {
    services,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await engine.cancelAll();
      listeners.clear();
      db.close();
    },
  };
}
