// The core: one database, the key ring, the sync engine and every contract service, free of any host.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreEvent, Services } from '../../shared/contract';
import type { Core, CoreEventListener } from './types';
import { openDatabase } from './db';
import { createMemorySecretStore, type SecretStore } from './secrets';
import { createKeyRing } from './stores/keys';
import { createDemoStore, type DemoStore } from './stores/demo';
import { createStoreRegistry } from './stores/registry';
import { createSyncEngine } from './sync/run';
import { createStoreLocks } from './sync/store-lock';
import { createAppService } from './services/app';
import { createAudiencesService } from './services/audiences';
import { createCampaignsService } from './services/campaigns';
import { cleanOrphanedKeys, createStoresService } from './services/stores';
import { createSyncService } from './services/sync';
import { createTagsService } from './services/tags';
import { createTestsService } from './services/tests';

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
/** The user's own data, beside the cache and attached to its connection (see db/open.ts). */
export const USER_DATA_FILE = 'splitbook-user.db';

export async function createCore(deps: CoreDeps): Promise<Core> {
  const clock = deps.clock ?? Date.now;
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  mkdirSync(deps.dataDir, { recursive: true });
  const db = openDatabase(join(deps.dataDir, DATABASE_FILE), {
    userDataFile: join(deps.dataDir, USER_DATA_FILE),
  });

  const listeners = new Set<CoreEventListener>();
  function emit(event: CoreEvent): void {
    for (const listener of listeners) listener(event);
  }

  const keys = createKeyRing(deps.secrets, createMemorySecretStore());
  // The self-test first, then the clean-up of keys a failed add left behind: one keychain talk at a time.
  const keychain = deps.secrets.selfTest();
  const keysCleaned = keychain.then(() => cleanOrphanedKeys(db, keys));
  let demo: DemoStore | null = null;
  const stores = createStoreRegistry({
    db,
    keys,
    fetch: fetchImpl,
    demoStore: () => (demo ??= createDemoStore({ clock, ...deps.demo })),
  });

  const engine = createSyncEngine({
    db,
    lock: createStoreLocks(deps.dataDir),
    clientFor: stores.clientFor,
    clock,
    onProgress: (progress) => emit({ name: 'sync.progress', payload: progress }),
    // One event per fact: the renderer refreshes its store list on 'sync.finished' itself.
    onFinished: (report) => emit({ name: 'sync.finished', payload: report }),
  });

  const services: Services = {
    app: createAppService({ ...deps, keychain }),
    stores: createStoresService({
      db,
      keys,
      stores,
      engine,
      clock,
      fetch: fetchImpl,
      changed: () => emit({ name: 'stores.changed', payload: {} }),
    }),
    sync: createSyncService({ db, engine, stores, emit }),
    tests: createTestsService(db),
    campaigns: createCampaignsService(db),
    audiences: createAudiencesService(db),
    tags: createTagsService(db),
  };

  return {
    services,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await engine.cancelAll();
      await keysCleaned;
      listeners.clear();
      db.close();
    },
  };
}
