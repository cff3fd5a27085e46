// Waiting for a sync's report through the core's events: for callers that want the outcome (CLI, tests, benchmarks).
import type { SyncReport } from '#shared/contract/index';
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

/**
 * Starts a sync of the store and resolves with its report. A run already going (one a new key started,
 * say) is waited for first, so the report is of a run that started now.
 */
export async function syncAndWait(core: Core, storeId: string): Promise<SyncReport> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const report = nextSyncReport(core, storeId);
    const { started } = await core.services.sync.start({ storeId });
    if (started) return report;
    await report;
  }
  throw new Error(`A sync of store ${storeId} kept running: no new one could start`);
}
