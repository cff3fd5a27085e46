// `sync.*`: start and cancel syncs of one store or all, list what syncs set aside, and hear whether the window is online.
import type { CoreEvent, Services } from '#shared/contract/index';
import { pageSetAside } from '../db/cache/reads';
import type { Db } from '../db/types';
import type { StoreRegistry } from '../stores/registry';
import type { SyncEngine } from '../sync/run';

export interface SyncServiceDeps {
  db: Db;
  engine: SyncEngine;
  stores: StoreRegistry;
  emit(event: CoreEvent): void;
  /** The host's view of the network, for background syncs (sync/background.ts). */
  connectivity(online: boolean): void;
}

export function createSyncService({
  db,
  engine,
  stores,
  emit,
  connectivity,
}: SyncServiceDeps): Services['sync'] {
  const started = (storeIds: string[]) => emit({ name: 'sync.started', payload: { storeIds } });
  return {
    async start({ storeId }) {
      stores.row(storeId);
      if (engine.isRunning(storeId)) return { started: false };
      // engine.run never rejects (every failure is a report); the catch is the last fence of the process.
      engine.run(storeId).catch(logLost);
      started([storeId]);
      return { started: true };
    },
    async startAll() {
      const ids: string[] = [];
      for (const row of stores.rows()) {
        if (engine.isRunning(row.id)) continue;
        engine.run(row.id).catch(logLost);
        ids.push(row.id);
      }
      if (ids.length > 0) started(ids);
      return { started: ids };
    },
    async cancel({ storeId }) {
      return { cancelled: engine.cancel(storeId) };
    },
    issues: async (input) => pageSetAside(db, input),
    async connectivity({ online }) {
      connectivity(online);
      return null;
    },
  };
}

function logLost(error: unknown): void {
  console.error('[splitbook] a sync ended without a report:', error);
}
