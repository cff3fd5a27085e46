// Sync benchmarks: a rate-limited full sync of 2,000 tests, a re-sync where nothing changed, and ingest speed.
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createSimulator } from '../src/simulator';
import { createCore } from '../src/main/core/create-core';
import { createMemorySecretStore } from '../src/main/core/secrets';
import { insertStore, openDatabase, upsertTests } from '../src/main/core/db';
import { syncAndWait } from '../src/main/core/sync/wait';
import { fmt, printFigures, withTempDir } from './support';

const TESTS = 2000;
const RATE = Number(process.env.BENCH_RATE ?? 50);

/** The mock API in a process of its own, so its CPU does not compete with the sync's event loop. */
async function startMockApi(rate: number, tests: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/simulator/serve.ts',
      '--port',
      '0',
      '--seed',
      '5',
      '--rate',
      String(rate),
      '--tests',
      String(tests),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const counts = { ok: 0, throttled: 0, other: 0, listing: 0 };
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  const { baseUrl, stores } = JSON.parse(first) as {
    baseUrl: string;
    stores: { apiKey: string; readOnly: boolean }[];
  };
  lines.on('line', (line) => {
    const [, path = '', status = ''] = line.split(' ');
    if (status === '200') counts.ok += 1;
    else if (status === '429') counts.throttled += 1;
    else counts.other += 1;
    if (/\/tests(\?|$)/.test(path)) counts.listing += 1;
  });
  const apiKey = stores.find((s) => !s.readOnly)?.apiKey ?? '';
  return {
    baseUrl,
    apiKey,
    counts,
    reset: () => Object.assign(counts, { ok: 0, throttled: 0, other: 0, listing: 0 }),
    stop: () =>
      new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))),
  };
}

export async function benchSync(): Promise<void> {
  await withTempDir(async (dir) => {
    const api = await startMockApi(RATE, TESTS);
    const core = await createCore({
      dataDir: dir,
      secrets: createMemorySecretStore(),
      host: 'cli',
      version: 'bench',
    });
    try {
      const store = await core.services.stores.add({
        name: 'Bench store',
        baseUrl: api.baseUrl,
        apiKey: api.apiKey,
        sessionOnly: true,
      });
      // Start with a full bucket, as a store that was idle would.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      api.reset();
      const started = performance.now();
      const full = await syncAndWait(core, store.id);
      const seconds = (performance.now() - started) / 1000;
      const answered = api.counts.ok + api.counts.other;
      // The bucket holds RATE tokens at the start: take them out of the rate the limit allows.
      const allowed = RATE * seconds + RATE;
      printFigures(
        `Full sync of ${TESTS} tests under a limit of ${RATE} requests/s (mock API in its own process, real HTTP)`,
        [
          { name: 'outcome', value: full.outcome },
          { name: 'wall time', value: `${fmt(seconds)} s` },
          { name: 'requests answered (not 429)', value: String(answered) },
          { name: '429 answers', value: String(api.counts.throttled) },
          { name: 'results fetched', value: String(full.resultsFetched) },
          {
            name: 'achieved rate / limit',
            value: fmt(answered / seconds / RATE, 2),
            goal: '>= 0.9',
          },
          { name: 'answered / allowed by the bucket', value: fmt(answered / allowed, 2) },
        ],
      );

      api.reset();
      const again = await syncAndWait(core, store.id);
      await new Promise((resolve) => setTimeout(resolve, 100)); // let the last log lines arrive
      const total = api.counts.ok + api.counts.throttled + api.counts.other;
      printFigures('Re-sync where nothing changed', [
        { name: 'outcome', value: again.outcome },
        { name: 'listing requests', value: String(api.counts.listing) },
        {
          name: 'requests beyond the listing',
          value: String(total - api.counts.listing),
          goal: 'near zero',
        },
      ]);
    } finally {
      await core.close();
      await api.stop();
    }
  });
}

/**
 * Ingest speed against its floor: our upsertTests of 10,000 tests, then the very rows it wrote
 * (every table, same schema, indexes and search triggers) inserted again by a bare prepared-statement
 * loop in as many transactions (foreign keys off). The ratio is what our mapping and bookkeeping cost on top of SQLite.
 */
export async function benchIngest(): Promise<void> {
  const RUNS = 3;
  await withTempDir(async (dir) => {
    const sim = createSimulator({ seed: 9, stores: [{ name: 'Ingest', tests: 10_000 }] });
    const tests = sim.snapshot('Ingest').tests;
    const pages: (typeof tests)[] = [];
    for (let i = 0; i < tests.length; i += 100) pages.push(tests.slice(i, i + 100));
    const newStore = {
      id: 's',
      name: 'Ingest',
      baseUrl: 'http://x',
      kind: 'api',
      keyStorage: 'none',
      createdAt: new Date().toISOString(),
    } as const;

    // Best of three runs on each side: a 2-core machine's noise is larger than the difference measured.
    let oursSeconds = Number.POSITIVE_INFINITY;
    let db = openDatabase(join(dir, 'ingest-0.db'));
    for (let run = 0; run < RUNS; run++) {
      if (run > 0) {
        db.close();
        db = openDatabase(join(dir, `ingest-${run}.db`));
      }
      insertStore(db, newStore);
      const started = performance.now();
      for (const page of pages)
        upsertTests(db, {
          storeId: 's',
          tests: page,
          runId: 'run',
          syncedAt: new Date().toISOString(),
        });
      oursSeconds = Math.min(oursSeconds, (performance.now() - started) / 1000);
    }

    // Every row the ingest wrote, table by table in creation order (parents before children).
    const virtual = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
      )
      .pluck()
      .all() as string[];
    const tables = (
      db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'stores' ORDER BY rowid",
        )
        .pluck()
        .all() as string[]
    ).filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)));
    const rows = tables
      .map((table) => ({
        table,
        rows: db.prepare(`SELECT * FROM ${table}`).raw().all() as unknown[][],
      }))
      .filter((t) => t.rows.length > 0);
    const rowCount = rows.reduce((sum, t) => sum + t.rows.length, 0);
    db.close();

    let bareSeconds = Number.POSITIVE_INFINITY;
    for (let run = 0; run < RUNS; run++) {
      const bare = openDatabase(join(dir, `bare-${run}.db`));
      insertStore(bare, newStore);
      // Rows go in spread evenly over the transactions, not grouped by test, so foreign keys are off here:
      // that only makes the floor faster, never our figure better.
      bare.pragma('foreign_keys = OFF');
      const inserts = rows.map(({ table, rows: tableRows }) => {
        const width = tableRows[0]?.length ?? 0;
        return {
          tableRows,
          insert: bare.prepare(
            `INSERT INTO ${table} VALUES (${Array(width).fill('?').join(', ')})`,
          ),
        };
      });
      const chunk = bare.transaction((from: number, to: number) => {
        for (const { tableRows, insert } of inserts) {
          const lo = Math.floor((from * tableRows.length) / tests.length);
          const hi = Math.floor((to * tableRows.length) / tests.length);
          for (let i = lo; i < hi; i++) insert.run(...(tableRows[i] ?? []));
        }
      });
      const started = performance.now();
      for (let i = 0; i < tests.length; i += 100) chunk(i, Math.min(tests.length, i + 100));
      bareSeconds = Math.min(bareSeconds, (performance.now() - started) / 1000);
      bare.close();
    }

    printFigures(
      `Ingest of ${tests.length} tests (${rowCount} rows over ${tables.length} tables), 100 tests per transaction, best of ${RUNS}`,
      [
        {
          name: 'Splitbook upsertTests',
          value: `${fmt(rowCount / oursSeconds, 0)} rows/s (${fmt(tests.length / oursSeconds, 0)} tests/s)`,
        },
        { name: 'bare insert loop, same rows', value: `${fmt(rowCount / bareSeconds, 0)} rows/s` },
        { name: 'ratio', value: fmt(bareSeconds / oursSeconds, 2), goal: '>= 0.5' },
      ],
    );
  });
}
