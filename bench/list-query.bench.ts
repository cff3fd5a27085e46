// List query benchmark: a filtered, sorted first page over 10,000 cached tests, p50 and p95.
import { join } from 'node:path';
import { createSimulator } from '../src/simulator';
import { insertStore, listTests, openDatabase, upsertTests } from '../src/main/core/db';
import { TestListInput, type TestSortKey } from '../src/shared/contract';
import { fmt, percentile, printFigures, withTempDir } from './support';

export async function benchListQuery(): Promise<void> {
  await withTempDir(async (dir) => {
    const sim = createSimulator({ seed: 4, stores: [{ name: 'Big store', tests: 10_000 }] });
    const tests = sim.snapshot('Big store').tests;
    const db = openDatabase(join(dir, 'list.db'));
    insertStore(db, {
      id: 's',
      name: 'Big store',
      baseUrl: 'http://x',
      kind: 'api',
      keyStorage: 'none',
      createdAt: new Date().toISOString(),
    });
    for (let i = 0; i < tests.length; i += 500) {
      upsertTests(db, {
        storeId: 's',
        tests: tests.slice(i, i + 500),
        runId: 'run',
        syncedAt: new Date().toISOString(),
      });
    }
    const sorts: TestSortKey[] = [
      'title',
      'updatedAt',
      'startAt',
      'probabilityToWin',
      'lift',
      'status',
    ];
    const queries = [
      { statuses: ['active', 'completed'] },
      { search: 'ship' },
      { goal: tests[0]?.goal ?? null },
      { statuses: ['completed'], device: tests[0]?.device ?? null },
      {},
    ];
    const samples: number[] = [];
    for (let round = 0; round < 10; round++) {
      for (const filter of queries) {
        for (const key of sorts) {
          const input = TestListInput.parse({
            storeId: 's',
            ...filter,
            sort: { key, dir: round % 2 ? 'asc' : 'desc' },
            limit: 500,
          });
          const started = performance.now();
          const page = listTests(db, input);
          samples.push(performance.now() - started);
          if (page.rows.length === 0 && page.total > 0) throw new Error('empty page');
        }
      }
    }
    samples.sort((a, b) => a - b);
    db.close();
    printFigures(
      `List query over ${tests.length} cached tests (filter + sort, first page of 500, ${samples.length} runs)`,
      [
        { name: 'p50', value: `${fmt(percentile(samples, 50), 2)} ms` },
        { name: 'p95', value: `${fmt(percentile(samples, 95), 2)} ms`, goal: '< 20 ms' },
        { name: 'max', value: `${fmt(percentile(samples, 100), 2)} ms` },
      ],
    );
  });
}
