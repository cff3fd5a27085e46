// Sync benchmarks: Splitbook beside a naive client under one rate limit, a second run from the learnt rate, a re-sync where nothing changed, and ingest speed.
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { createSimulator } from '#simulator/index';
import { createCore, DATABASE_FILE } from '#core/create-core';
import { createMemorySecretStore } from '#core/secrets/index';
import { insertStore } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import { syncAndWait } from '#core/sync/wait';
import { createApiClient, createRequestLimiter } from '#core/api/index';
import { STORE_REQUESTS_IN_FLIGHT } from '#core/stores/registry';
import { LISTING_AHEAD } from '#core/sync/pull/tests';
import { packJson } from '#core/db/values';
import { testAlerts } from '#shared/domain/statistics/index';
import { isLaunched } from '#shared/domain/lifecycle';
import { fmt, printFigures, withTempDir } from './support';

const TESTS = 2000;
const RATE = Number(process.env.BENCH_RATE ?? 50);
/** A real server's round trip: every answer of the mock API is delayed by 40 to 120 ms. */
const LATENCY = process.env.BENCH_LATENCY ?? '40-120';
/** The window over which the start of a run is judged. */
const FIRST_SECONDS = 10;

/**
 * The mock API (the project's simulator) in a process of its own, so its CPU does not compete with
 * the sync's event loop. The simulator's bucket holds RATE tokens (the burst) and refills RATE a second.
 */
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
      '--latency',
      LATENCY,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const counts = { ok: 0, throttled: 0, other: 0, listing: 0 };
  /** When each answer that was not a 429 arrived (performance.now()). */
  const answeredAt: number[] = [];
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
    if (status !== '429') answeredAt.push(performance.now());
    if (/\/tests(\?|$)/.test(path)) counts.listing += 1;
  });
  const apiKey = stores.find((s) => !s.readOnly)?.apiKey ?? '';
  return {
    baseUrl,
    apiKey,
    counts,
    answeredAt,
    reset: () => {
      Object.assign(counts, { ok: 0, throttled: 0, other: 0, listing: 0 });
      answeredAt.length = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))),
  };
}

/** Answered requests over what the bucket allowed in `seconds`: its refill plus the burst it held at the start. */
function ofAllowed(answered: number, seconds: number): number {
  return answered / (RATE * seconds + RATE);
}

/**
 * The naive client the issue measured Splitbook against: every page of the listing, then the results
 * of every launched test, one request at a time, waiting a fixed second after a 429.
 */
async function naiveSync(baseUrl: string, apiKey: string): Promise<void> {
  const get = async (path: string): Promise<unknown> => {
    for (;;) {
      const res = await fetch(`${baseUrl}/api/public/v1${path}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (res.status === 429) {
        await res.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      return res.json();
    }
  };
  type Listing = {
    data: { id: string; status: string }[];
    pagination: { totalPages: number };
  };
  const launched: string[] = [];
  for (let page = 1; ; page++) {
    const body = (await get(`/tests?page=${page}&perPage=100`)) as Listing;
    for (const test of body.data) if (isLaunched(test.status)) launched.push(test.id);
    if (page >= body.pagination.totalPages || body.data.length === 0) break;
  }
  for (const id of launched) await get(`/tests/${id}/results`);
}

export async function benchSync(): Promise<void> {
  await withTempDir(async (dir) => {
    // Two mock APIs from one seed (the same store), one per client, so each has a bucket of its own.
    const api = await startMockApi(RATE, TESTS);
    const naiveApi = await startMockApi(RATE, TESTS);
    // One secret store for both cores below: it stands in for the keychain across the restart.
    const secrets = createMemorySecretStore();
    const open = () => createCore({ dataDir: dir, secrets, host: 'cli', version: 'bench' });
    let core = await open();
    try {
      const store = await core.services.stores.add({
        name: 'Bench store',
        baseUrl: api.baseUrl,
        apiKey: api.apiKey,
        sessionOnly: false,
      });
      // Start with a full bucket, as a store that was idle would.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      api.reset();
      naiveApi.reset();
      const cpu = process.cpuUsage();
      const started = performance.now();
      // Both clients run at once, so the machine's load is the same for both.
      const [full, naiveSeconds] = await Promise.all([
        syncAndWait(core, store.id).then((outcome) => ({
          outcome,
          seconds: (performance.now() - started) / 1000,
        })),
        naiveSync(naiveApi.baseUrl, naiveApi.apiKey).then(
          () => (performance.now() - started) / 1000,
        ),
      ]);
      const used = process.cpuUsage(cpu);
      const cpuSeconds = (used.user + used.system) / 1e6;
      await new Promise((resolve) => setTimeout(resolve, 100)); // let the last log lines arrive
      const answered = api.counts.ok + api.counts.other;
      const naiveAnswered = naiveApi.counts.ok + naiveApi.counts.other;
      printFigures(
        `Full sync of ${TESTS} tests under a limit of ${RATE} requests/s, answers delayed ${LATENCY} ms (simulator in its own process, real HTTP), Splitbook and a naive client side by side`,
        [
          { name: 'Splitbook outcome', value: full.outcome.outcome },
          { name: 'Splitbook wall time', value: `${fmt(full.seconds)} s` },
          { name: 'Splitbook requests answered (not 429)', value: String(answered) },
          { name: 'Splitbook 429 answers', value: String(api.counts.throttled) },
          { name: 'Splitbook results fetched', value: String(full.outcome.resultsFetched) },
          {
            name: 'Splitbook answered / (R·T + burst)',
            value: fmt(ofAllowed(answered, full.seconds), 2),
            goal: '>= 0.9',
          },
          { name: 'naive client wall time', value: `${fmt(naiveSeconds)} s` },
          { name: 'naive client requests answered', value: String(naiveAnswered) },
          { name: 'naive client 429 answers', value: String(naiveApi.counts.throttled) },
          {
            name: 'naive client answered / (R·T + burst)',
            value: fmt(ofAllowed(naiveAnswered, naiveSeconds), 2),
          },
          { name: 'CPU of this process (both clients)', value: `${fmt(cpuSeconds)} s` },
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

      // A second full run after a restart: the store's cached tests are dropped (the store row, with
      // the rate it learnt, stays), so the run has as much to fetch as the first, and a new core
      // starts it from the learnt rate kept in the cache, as the app does the next day.
      await core.close();
      const cache = new Database(join(dir, DATABASE_FILE));
      cache.pragma('busy_timeout = 5000');
      cache.prepare('DELETE FROM tests WHERE store_id = ?').run(store.id);
      const learnt = cache
        .prepare('SELECT learned_rate AS rate FROM stores WHERE id = ?')
        .get(store.id) as { rate: number | null } | undefined;
      cache.close();
      core = await open();
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the bucket refills
      api.reset();
      const secondStarted = performance.now();
      const second = await syncAndWait(core, store.id);
      const secondSeconds = (performance.now() - secondStarted) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const window = Math.min(FIRST_SECONDS, secondSeconds);
      const early = api.answeredAt.filter((t) => t - secondStarted <= window * 1000).length;
      printFigures(`Second full run after a restart, from the learnt rate`, [
        { name: 'outcome', value: second.outcome },
        {
          name: 'learnt rate kept from the first run',
          value: learnt?.rate == null ? 'none' : `${fmt(learnt.rate)} requests/s`,
        },
        { name: 'wall time', value: `${fmt(secondSeconds)} s` },
        { name: `answered in the first ${fmt(window, 0)} s`, value: String(early) },
        {
          name: `first ${fmt(window, 0)} s: answered / (R·T + burst)`,
          value: fmt(ofAllowed(early, window), 2),
          goal: '>= 0.9',
        },
        { name: '429 answers', value: String(api.counts.throttled) },
      ]);
    } finally {
      await core.close();
      await api.stop();
      await naiveApi.stop();
    }
  });
}

/**
 * Ingest speed against its floor: our upsertTests and upsertResults of 10,000 tests with the results
 * of every launched one, then the very rows they wrote (every table, same schema, indexes and triggers)
 * inserted again by a bare prepared-statement loop in as many transactions (foreign keys off). The two
 * sides take turns, run after run, so the machine's load drifts onto both alike. The ratio is what our
 * mapping and bookkeeping cost on top of SQLite.
 */
export async function benchIngest(): Promise<void> {
  const RUNS = 3;
  await withTempDir(async (dir) => {
    const sim = createSimulator({ seed: 9, stores: [{ name: 'Ingest', tests: 10_000 }] });
    const tests = sim.snapshot('Ingest').tests;
    // Results are generated before any timing: the simulator's work is not the ingest's.
    const resultsOf = new Map(
      tests.flatMap((test) => {
        const results = isLaunched(test.status) ? sim.results('Ingest', test.id) : null;
        return results ? [[test.id, results] as const] : [];
      }),
    );
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
    const cpuNow = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    };

    /** One run of ours into a new file: per page, the tests in one transaction and their results in another. */
    const ours = (file: string) => {
      const db = openDatabase(join(dir, file));
      insertStore(db, newStore);
      const cpu = cpuNow();
      const started = performance.now();
      for (const page of pages) {
        const syncedAt = new Date().toISOString();
        upsertTests(db, { storeId: 's', tests: page, runId: 'run', syncedAt });
        db.transaction(() => {
          for (const test of page) {
            const results = resultsOf.get(test.id);
            if (!results) continue;
            upsertResults(db, {
              storeId: 's',
              testId: test.id,
              results,
              fetchedAt: syncedAt,
              testUpdatedAt: test.updatedAt,
              testStatus: test.status,
            });
          }
        })();
      }
      return { db, seconds: (performance.now() - started) / 1000, cpu: cpuNow() - cpu };
    };

    // A first run of ours gives the rows the bare loop inserts.
    const first = ours('ingest-0.db');
    const db = first.db;
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

    /** One run of the bare loop into a new file. */
    const bareRun = (file: string) => {
      const bare = openDatabase(join(dir, file));
      insertStore(bare, newStore);
      // The kept counts (test_facet_counts, …) are filled by the triggers as the tests go in; copying
      // their rows as well would count twice.
      bare.exec('DELETE FROM test_facet_counts; DELETE FROM test_campaign_counts;');
      // Rows go in spread evenly over the transactions, not grouped by test, so foreign keys are off here:
      // that only makes the floor faster, never our figure better.
      bare.pragma('foreign_keys = OFF');
      const inserts = rows
        .filter(({ table }) => table !== 'test_facet_counts' && table !== 'test_campaign_counts')
        .map(({ table, rows: tableRows }) => {
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
      const cpu = cpuNow();
      const started = performance.now();
      for (let i = 0; i < tests.length; i += 100) chunk(i, Math.min(tests.length, i + 100));
      const result = { seconds: (performance.now() - started) / 1000, cpu: cpuNow() - cpu };
      bare.close();
      return result;
    };

    // Turns: bare, ours, bare, ours… best of RUNS on each side, wall clock and CPU time alike.
    const best = { ours: Infinity, oursCpu: Infinity, bare: Infinity, bareCpu: Infinity };
    for (let run = 0; run < RUNS; run++) {
      const b = bareRun(`bare-${run}.db`);
      best.bare = Math.min(best.bare, b.seconds);
      best.bareCpu = Math.min(best.bareCpu, b.cpu);
      const o = ours(`ingest-${run + 1}.db`);
      o.db.close();
      best.ours = Math.min(best.ours, o.seconds);
      best.oursCpu = Math.min(best.oursCpu, o.cpu);
    }

    // Two deliberate costs the floor does not pay, timed alone on the same records: the raw results
    // compressed for the disk goal (about 5x smaller), and the data-quality alerts kept on each test
    // so the list can filter and count them without reading results.
    const testOf = new Map(tests.map((test) => [test.id, test]));
    const part = (run: () => void) => {
      let bestCpu = Infinity;
      for (let i = 0; i < RUNS; i++) {
        const cpu = cpuNow();
        run();
        bestCpu = Math.min(bestCpu, cpuNow() - cpu);
      }
      return bestCpu;
    };
    const packCpu = part(() => {
      for (const results of resultsOf.values()) packJson(results);
    });
    const alertsCpu = part(() => {
      const now = Date.now();
      for (const [id, results] of resultsOf) {
        const test = testOf.get(id);
        if (test) testAlerts(test, results, { now });
      }
    });
    const rest = best.oursCpu - packCpu - alertsCpu;

    printFigures(
      `Ingest of ${tests.length} tests with the results of ${resultsOf.size} (${rowCount} rows over ${tables.length} tables), 100 tests per page, sides interleaved, best of ${RUNS}`,
      [
        {
          name: 'Splitbook upsertTests + upsertResults',
          value: `${fmt(rowCount / best.ours, 0)} rows/s (${fmt(tests.length / best.ours, 0)} tests/s)`,
        },
        { name: 'bare insert loop, same rows', value: `${fmt(rowCount / best.bare, 0)} rows/s` },
        { name: 'ratio (wall clock)', value: fmt(best.bare / best.ours, 2), goal: '>= 0.7' },
        { name: 'ratio (CPU time)', value: fmt(best.bareCpu / best.oursCpu, 2), goal: '>= 0.7' },
        { name: 'of our CPU time: compressing the raw results', value: `${fmt(packCpu, 2)} s` },
        { name: 'of our CPU time: the data-quality alerts', value: `${fmt(alertsCpu, 2)} s` },
        { name: 'of our CPU time: the rest', value: `${fmt(rest, 2)} s` },
        {
          name: 'ratio (CPU time) without compression and alerts',
          value: fmt(best.bareCpu / Math.max(rest, 1e-9), 2),
        },
      ],
    );
  });
}

/**
 * The listing alone, where it is long: 500 pages of 100 tests (50,000, a quarter of such a sync) under the same limit and latency,
 * walked by the client as the sync walks it (LISTING_AHEAD pages asked for while one is handled,
 * the store's limiter and concurrency), from a cold limiter as in a first run.
 */
export async function benchListing(): Promise<void> {
  const tests = 50_000;
  const api = await startMockApi(RATE, tests);
  try {
    await new Promise((resolve) => setTimeout(resolve, 1500)); // a full bucket, as an idle store's
    api.reset();
    const client = createApiClient({
      baseUrl: api.baseUrl,
      apiKey: api.apiKey,
      limiter: createRequestLimiter({ concurrency: STORE_REQUESTS_IN_FLIGHT }),
    });
    const started = performance.now();
    let pages = 0;
    for await (const page of client.walkTests({ perPage: 100, ahead: LISTING_AHEAD })) {
      pages += page.items.length > 0 ? 1 : 0;
    }
    const seconds = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the last log lines arrive
    printFigures(
      `Listing of ${tests} tests (${pages} pages of 100) under a limit of ${RATE} requests/s, answers delayed ${LATENCY} ms, ${LISTING_AHEAD} pages ahead`,
      [
        { name: 'wall time', value: `${fmt(seconds)} s` },
        { name: 'listing requests (429s included)', value: String(api.counts.listing) },
        { name: '429 answers', value: String(api.counts.throttled) },
        {
          name: 'answered / (R·T + burst)',
          value: fmt(ofAllowed(api.counts.ok + api.counts.other, seconds), 2),
          goal: '>= 0.9',
        },
      ],
    );
  } finally {
    await api.stop();
  }
}
