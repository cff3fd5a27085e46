// `sync.*`: start and cancel syncs of one store or all, and list what syncs set aside.
import type { CoreEvent, Services } from '../../../shared/contract';
import { pageSetAside, type Db } from '../db';
import type { StoreRegistry } from '../stores/registry';
import type { SyncEngine } from '../sync/run';

export interface SyncServiceDeps {
  db: Db;
  engine: SyncEngine;
  stores: StoreRegistry;
  emit(event: CoreEvent): void;
}

export function createSyncService({ db, engine, stores, emit }: SyncServiceDeps): Services['sync'] {
  const storesChanged = () => emit({ name: 'stores.changed', payload: {} });
  return {
    async start({ storeId }) {
      stores.row(storeId);
      if (engine.isRunning(storeId)) return { started: false };
      // engine.run never rejects (every failure is a report); the catch is the last fence of the process.
      engine.run(storeId).catch(logLost);
      storesChanged();
      return { started: true };
    },
    async startAll() {
      const started: string[] = [];
      for (const row of stores.rows()) {
        if (engine.isRunning(row.id)) continue;
        engine.run(row.id).catch(logLost);
        started.push(row.id);
      }
      if (started.length > 0) storesChanged();
      return { started };
    },
    async cancel({ storeId }) {
      return { cancelled: engine.cancel(storeId) };
    },
    issues: async (input) => pageSetAside(db, input),
  };
}

function logLost(error: unknown): void {
  console.error('[splitbook] a sync ended without a report:', error);
}
