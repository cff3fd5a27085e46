// The core: one database, the key ring, the sync engine and every contract service, free of any host.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreEvent, Services } from '../../shared/contract';
import type { Core, CoreEventListener } from './types';
import { backfillAlerts, openDatabase } from './db';
import { createMemorySecretStore, type SecretStore } from './secrets';
import { createKeyRing } from './stores/keys';
import { createDemoStore, type DemoStore } from './stores/demo';
import { createStoreRegistry } from './stores/registry';
import { createSyncEngine } from './sync/run';
import { createStoreLocks } from './sync/store-lock';
import { createAppService } from './services/app';
import { createAudiencesService } from './services/audiences';
import { createCampaignsService } from './services/campaigns';
import { createEditsService } from './services/edits';
import { rebaseAll } from './sync/push/records';
import { createStoresService } from './services/stores';
import { createSyncService } from './services/sync';
import { createTagsService } from './services/tags';
import { createTestsService } from './services/tests';
import { createReportsService } from './services/reports';
import type { SaveFile } from './reports/save';
import { writeExport } from './reports/export';
import { writeFileAtomically } from './reports/write-file';
import { createNotesService } from './services/notes';
import { createPortfolioService } from './services/portfolio';
import { createReviewService } from './services/review';

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
  /** Where an export from the window is saved (a dialog, a download); hosts that cannot save leave it out. */
  saveFile?: SaveFile;
  /** Simulator settings of the demo store (tests shrink it). */
  demo?: { tests?: number; seed?: number };
  /** Send an edit as soon as it is made (default true); off, edits wait for a sync or edits.push. */
  pushOnEdit?: boolean;
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
  // Results cached before alerts were stored on tests (cache migration 5) get theirs once, here.
  backfillAlerts(db);

  // The outbox is the source of truth for unsent work: a crash between its write and the cache's is
  // repaired here, by applying every pending edit onto the server's copy again.
  rebaseAll(db, null, new Date(clock()).toISOString());

  const listeners = new Set<CoreEventListener>();
  function emit(event: CoreEvent): void {
    for (const listener of listeners) listener(event);
  }

  const keychain = deps.secrets.selfTest();
  const keys = createKeyRing(deps.secrets, createMemorySecretStore());
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
    onFinished: (report) => {
      try {
        stores.rememberRate(report.storeId);
      } catch (error) {
        // Only a head start for the next run is lost; the report still goes out.
        console.error('[splitbook] could not keep the learnt request rate:', error);
      }
      // One event per fact: the renderer refreshes its store list on 'sync.finished' itself.
      emit({ name: 'sync.finished', payload: report });
    },
    onEditsChanged: (storeId) => emit({ name: 'edits.changed', payload: { storeId } }),
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
    reports: createReportsService({ db, clock, saveFile: deps.saveFile, emit }),
    edits: createEditsService({ db, stores, engine, clock, emit, pushOnEdit: deps.pushOnEdit }),
    review: createReviewService(db, clock),
    notes: createNotesService(db, clock),
    portfolio: createPortfolioService(db, clock),
  };

  return {
    services,
    reports: {
      write: (request, out, options) => writeExport(db, request, out, { now: clock(), ...options }),
      writeFile: (request, path, options) =>
        writeFileAtomically(path, (out) => writeExport(db, request, out, { now: clock(), ...options })),
    },
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
