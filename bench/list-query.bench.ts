// List query benchmark: first pages, cursor pages and facets over 10,000 and 50,000 cached tests with
// results, in 20 stores, for one store and for All stores; cold (the data just changed, as during a
// sync) and warm (nothing changed since the last ask).
import { join } from 'node:path';
import { createSimulator } from '#simulator/index';
import { insertStore } from '#core/db/cache/stores';
import { listTests, testFacets } from '#core/db/cache/test-list';
import { openDatabase } from '#core/db/open';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { isLaunched } from '#shared/domain/lifecycle';
import { TestFilter, TestListInput, type TestSortKey } from '#shared/contract/index';
import { fmt, percentile, printFigures, withTempDir } from './support';

const STORES = 20;
const SORTS: TestSortKey[] = [
  'updatedAt',
  'title',
  'startAt',
  'probabilityToWin',
  'lift',
  'status',
];

export async function benchListQuery(): Promise<void> {
  for (const total of [10_000, 50_000]) {
    await withTempDir(async (dir) => {
      const db = openDatabase(join(dir, 'list.db'));
      const started = performance.now();
      const storeIds = fill(db, total);
      const fillSeconds = (performance.now() - started) / 1000;
      const oneStore = storeIds[0] ?? null;

      // CPU time of this process beside the wall clock: on a loaded machine the wall clock also
      // counts other processes' turns, the CPU time only this query's own work.
      const cpuMs = () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };
      const cpuFacets: number[] = [];
      const time = (cold: boolean, run: () => void, cpu?: number[]): number => {
        // A write of this connection is what a sync page does: every memo is dropped.
        if (cold) db.prepare('UPDATE stores SET position = position WHERE id = ?').run(oneStore);
        const c = cpuMs();
        const t = performance.now();
        run();
        const wall = performance.now() - t;
        cpu?.push(cpuMs() - c);
        return wall;
      };
      const cpuTime = (cold: boolean, run: () => void): number => {
        const cpu: number[] = [];
        time(cold, run, cpu);
        return cpu[0] ?? Number.NaN;
      };
      const samples = {
        first: [] as number[],
        firstWarm: [] as number[],
        cursor: [] as number[],
        facets: [] as number[],
        facetsWarm: [] as number[],
        refreshWhole: [] as number[],
        refreshWindow: [] as number[],
      };
      for (let round = 0; round < 20; round++) {
        for (const storeId of [oneStore, null]) {
          for (const key of SORTS) {
            const input = TestListInput.parse({
              storeId,
              sort: { key, dir: round % 2 ? 'asc' : 'desc' },
              limit: 100,
            });
            let next: string | null = null;
            samples.first.push(time(true, () => (next = listTests(db, input).nextCursor)));
            samples.firstWarm.push(time(false, () => listTests(db, input)));
            if (next) {
              const page2 = { ...input, cursor: next };
              samples.cursor.push(time(false, () => listTests(db, page2)));
            }
          }
          const filter = TestFilter.parse({ storeId });
          // A refresh during a sync, the list scrolled 2,000 rows deep (as the renderer asks, the data
          // just changed, CPU time): before, every loaded row again in pages of 200 plus the facets;
          // now, the rows on screen from their page's cursor (a page and a screenful, 260 rows) plus the facets.
          if (round < 5) {
            const byUpdate = TestListInput.parse({ storeId, limit: 2000 });
            const deep = listTests(db, byUpdate).nextCursor;
            samples.refreshWhole.push(
              cpuTime(true, () => {
                let cursor: string | null = null;
                let loaded = 0;
                do {
                  const page = listTests(db, { ...byUpdate, cursor, limit: 200 });
                  loaded += page.rows.length;
                  cursor = page.nextCursor;
                } while (cursor !== null && loaded < 2260);
                testFacets(db, filter);
              }),
            );
            samples.refreshWindow.push(
              cpuTime(true, () => {
                listTests(db, { ...byUpdate, cursor: deep, limit: 260 });
                testFacets(db, filter);
              }),
            );
          }
          samples.facets.push(time(true, () => testFacets(db, filter), cpuFacets));
          samples.facetsWarm.push(time(false, () => testFacets(db, filter)));
        }
      }
      db.close();
      const p = (xs: number[], q: number) =>
        `${fmt(
          percentile(
            [...xs].sort((a, b) => a - b),
            q,
          ),
          2,
        )} ms`;
      printFigures(
        `List query over ${total} cached tests with results in ${STORES} stores (one store and All stores, pages of 100; filled in ${fmt(fillSeconds)} s)`,
        [
          { name: 'first page, data just changed  p50', value: p(samples.first, 50) },
          {
            name: 'first page, data just changed  p95',
            value: p(samples.first, 95),
            goal: '< 20 ms',
          },
          { name: 'first page, unchanged data     p95', value: p(samples.firstWarm, 95) },
          { name: 'next cursor page               p95', value: p(samples.cursor, 95) },
          { name: 'facets, data just changed      p50', value: p(samples.facets, 50) },
          {
            name: 'facets, data just changed      p95',
            value: p(samples.facets, 95),
            goal: '< 30 ms',
          },
          { name: 'facets, data just changed, CPU p95', value: p(cpuFacets, 95) },
          { name: 'facets, unchanged data         p95', value: p(samples.facetsWarm, 95) },
          {
            name: 'refresh during a sync, 2,000 rows deep: every loaded row (before), CPU p95',
            value: p(samples.refreshWhole, 95),
          },
          {
            name: 'refresh during a sync, 2,000 rows deep: the rows on screen (now), CPU p95',
            value: p(samples.refreshWindow, 95),
            goal: '< 16 ms',
          },
        ],
      );
    });
  }
}

/** `total` tests over STORES stores from the simulator, with the results of every launched one. */
function fill(db: Db, total: number): string[] {
  const perStore = Math.ceil(total / STORES);
  const ids: string[] = [];
  const now = new Date().toISOString();
  for (let s = 0; s < STORES; s++) {
    const name = `Store ${s + 1}`;
    const sim = createSimulator({ seed: 40 + s, stores: [{ name, tests: perStore }], rate: null });
    const id = `s${s + 1}`;
    ids.push(id);
    insertStore(db, {
      id,
      name,
      baseUrl: 'http://x',
      kind: 'api',
      keyStorage: 'none',
      createdAt: now,
    });
    const tests = sim.snapshot(name).tests;
    for (let i = 0; i < tests.length; i += 500) {
      upsertTests(db, { storeId: id, tests: tests.slice(i, i + 500), runId: 'run', syncedAt: now });
    }
    db.transaction(() => {
      for (const test of tests) {
        if (!isLaunched(test.status)) continue;
        const results = sim.results(name, test.id);
        if (!results) continue;
        upsertResults(db, {
          storeId: id,
          testId: test.id,
          results,
          fetchedAt: now,
          testUpdatedAt: test.updatedAt,
          testStatus: test.status,
        });
      }
    })();
  }
  return ids;
}
