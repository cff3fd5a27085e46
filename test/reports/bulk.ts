// A large cache for the memory test and the benchmark: simulated tests, each live for `days` days with the
// simulator's generated results, written straight through the cache's write functions (no sync).
import { insertStore, recordSyncOutcome } from '#core/db/cache/stores';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { createSimulator } from '#simulator/index';
import { computeResults } from '#simulator/results';

const DAY_MS = 86_400_000;
const SEED = 4;
const PAGE = 200;

export type BulkStore = { tests: number; dailyRows: number };

/** Adds store `storeId` with `tests` active tests of `days` days each, as synced at `now`. */
export function fillBulkStore(
  db: Db,
  options: { storeId: string; name: string; tests: number; days: number; now: number },
): BulkStore {
  const { storeId, name, tests, days, now } = options;
  const at = new Date(now).toISOString();
  insertStore(db, {
    id: storeId,
    name,
    baseUrl: `http://${storeId}.invalid`,
    kind: 'api',
    keyStorage: 'none',
    createdAt: at,
  });
  // The simulator leaves some tests without a variant (no results); generate enough to keep `tests`.
  const sim = createSimulator({
    seed: SEED,
    stores: [{ name, tests: Math.ceil(tests * 1.4) + 20 }],
  });
  const startAt = new Date(now - (days - 1) * DAY_MS).toISOString();
  const chosen = sim
    .snapshot(name)
    .tests.filter((t) => t.variant !== null)
    .slice(0, tests)
    .map((t) => ({ ...t, status: 'active', startAt, endAt: null, updatedAt: at }));
  if (chosen.length < tests)
    throw new Error(`The simulator made only ${chosen.length} tests with a variant`);
  let dailyRows = 0;
  for (let i = 0; i < chosen.length; i += PAGE) {
    const page = chosen.slice(i, i + PAGE);
    upsertTests(db, { storeId, tests: page, runId: 'bulk', syncedAt: at });
    db.transaction(() => {
      for (const test of page) {
        const results = computeResults(SEED, test, now);
        if (!results) continue;
        for (const day of Object.values(results.daily))
          dailyRows += (day.performance.control ? 1 : 0) + (day.performance.variant ? 1 : 0);
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
  }
  recordSyncOutcome(db, storeId, {
    outcome: 'ok',
    problem: null,
    finishedAt: at,
    lastSyncedAt: at,
  });
  return { tests: chosen.length, dailyRows };
}
