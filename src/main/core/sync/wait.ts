// Waiting for a sync's report through the core's events: for callers that want the outcome (CLI, tests, benchmarks).
import type { SyncReport } from '../../../shared/contract';
import type { Core } from '../types';

/** Resolves with the report of the next sync of `storeId` to finish. */
export function nextSyncReport(core: Core, storeId: string): Promise<SyncReport> {
  return new Promise((resolve) => {
    const stop = core.subscribe((event) => {
      if (event.name !== 'sync.finished') return;
      const report = event.payload;
      if (report.storeId !== storeId) return;
      stop();
      resolve(report);
    });
  });
}

/** Starts a sync of the store and resolves with its report; refuses when one is already running. */
export async function syncAndWait(core: Core, storeId: string): Promise<SyncReport> {
  const report = nextSyncReport(core, storeId);
  const { started } = await core.services.sync.start({ storeId });
  if (!started) throw new Error(`A sync of store ${storeId} is already running`);
  return report;
}
