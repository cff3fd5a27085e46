// A cache filled straight from the simulator, as a sync leaves it (a store, its tests, their results),
// without HTTP: for tests and benches of what is done with cached data.
import { insertStore } from '#core/db/cache/stores';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import type { Simulator } from '#simulator/index';

/** Every store of `sim` as `s0`, `s1`, …; returns their ids and how many tests have results. */
export function cacheSimulatedStores(
  db: Db,
  sim: Simulator,
  at: string,
): { storeIds: string[]; withResults: number } {
  let withResults = 0;
  const storeIds = sim.stores.map((store, i) => {
    const storeId = `s${i}`;
    insertStore(db, {
      id: storeId,
      name: store.name,
      baseUrl: 'http://simulated',
      kind: 'api',
      keyStorage: 'none',
      createdAt: at,
    });
    const tests = sim.snapshot(store.name).tests;
    upsertTests(db, { storeId, tests, runId: 'simulated', syncedAt: at });
    db.transaction(() => {
      for (const test of tests) {
        const results = sim.results(store.name, test.id);
        if (!results) continue;
        withResults += 1;
        upsertResults(db, {
          storeId,
          testId: test.id,
          results,
          fetchedAt: at,
          testUpdatedAt: test.updatedAt,
          testStatus: test.status,
        });
      }
    })();
    return storeId;
  });
  return { storeIds, withResults };
}
