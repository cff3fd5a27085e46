// Sync benchmarks: a rate-limited full sync of 2,000 tests, a re-sync where nothing changed, and ingest speed.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createSimulator, serveSimulator } from '../src/simulator';
import { createCore } from '../src/main/core';
import type { Core } from '../src/main/core-types';
import { createMemorySecretStore } from '../src/main/secrets';
import { insertStore, openDatabase, upsertTests } from '../src/main/db';
import { SyncReport } from '../src/shared/contract';
import { fmt, printFigures, withTempDir } from './support';

const TESTS = 2000;
const RATE = Number(process.env.BENCH_RATE ?? 100);

function syncOnce(core: Core, storeId: string): Promise<SyncReport> {
  return new Promise((resolve, reject) => {
    const stop = core.subscribe((event, payload) => {
      if (event !== 'sync.finished') return;
      const report = SyncReport.parse(payload);
      if (report.storeId !== storeId) return;
      stop();
      resolve(report);
    });
    core.services.sync.start({ storeId }).catch(reject);
  });
}

export async function benchSync(): Promise<void> {
  await withTempDir(async (dir) => {
    const sim = createSimulator({ seed: 5, stores: [{ name: 'Bench store', tests: TESTS }] });
    const served = await serveSimulator(sim, { port: 0 });
    const core = await createCore({ dataDir: dir, secrets: createMemorySecretStore(), host: 'cli', version: 'bench' });
    try {
      const apiKey = sim.stores[0]?.apiKey ?? '';
      const store = await core.services.stores.add({ name: 'Bench store', baseUrl: served.url, apiKey, sessionOnly: true });
      sim.setRate({ capacity: RATE, refillPerSecond: RATE });
      sim.resetStats();
      const started = performance.now();
      const full = await syncOnce(core, store.id);
      const seconds = (performance.now() - started) / 1000;
      const stats = sim.stats();
      const accepted = stats.requests - stats.rateLimited;
      printFigures(`Full sync of ${TESTS} tests under a limit of ${RATE} requests/s (real HTTP on loopback)`, [
        { name: 'outcome', value: full.outcome },
        { name: 'wall time', value: `${fmt(seconds)} s` },
        { name: 'requests answered (not 429)', value: String(accepted) },
        { name: '429 answers', value: String(stats.rateLimited) },
        { name: 'results fetched', value: String(full.resultsFetched) },
        { name: 'achieved rate / limit', value: fmt(accepted / seconds / RATE, 2), goal: '>= 0.9' },
      ]);

      sim.resetStats();
      const again = await syncOnce(core, store.id);
      const listing = Object.values(sim.stats().byRoute['GET /tests'] ?? {}).reduce((a, b) => a + b, 0);
      printFigures('Re-sync where nothing changed', [
        { name: 'outcome', value: again.outcome },
        { name: 'listing requests', value: String(listing) },
        { name: 'requests beyond the listing', value: String(sim.stats().requests - listing), goal: 'near zero' },
      ]);
    } finally {
      await core.close();
      await served.close();
    }
  });
}

export async function benchIngest(): Promise<void> {
  await withTempDir(async (dir) => {
    const sim = createSimulator({ seed: 9, stores: [{ name: 'Ingest', tests: 10_000 }] });
    const tests = sim.snapshot('Ingest').tests;
    const pages: (typeof tests)[] = [];
    for (let i = 0; i < tests.length; i += 100) pages.push(tests.slice(i, i + 100));

    const db = openDatabase(join(dir, 'ingest.db'));
    insertStore(db, { id: 's', name: 'Ingest', baseUrl: 'http://x', kind: 'api', keyStorage: 'none', createdAt: new Date().toISOString() });
    let started = performance.now();
    for (const page of pages) upsertTests(db, 's', page.map((test) => ({ test, raw: test })), 'run', new Date().toISOString());
    const ours = tests.length / ((performance.now() - started) / 1000);
    db.close();

    // The floor: the same rows as one JSON blob each, inserted by a bare prepared statement, a page per transaction.
    const bare = new Database(join(dir, 'bare.db'));
    bare.pragma('journal_mode = WAL');
    bare.pragma('synchronous = NORMAL');
    bare.exec('CREATE TABLE t (store_id TEXT, id TEXT, title TEXT, status TEXT, raw_json TEXT, PRIMARY KEY (store_id, id))');
    const insert = bare.prepare('INSERT OR REPLACE INTO t VALUES (?, ?, ?, ?, ?)');
    const writePage = bare.transaction((page: typeof tests) => {
      for (const test of page) insert.run('s', test.id, test.title, test.status, JSON.stringify(test));
    });
    started = performance.now();
    for (const page of pages) writePage(page);
    const floor = tests.length / ((performance.now() - started) / 1000);
    bare.close();

    printFigures(`Ingest of ${tests.length} tests, 100 per transaction`, [
      { name: 'Splitbook upsertTests', value: `${fmt(ours, 0)} tests/s` },
      { name: 'bare insert loop', value: `${fmt(floor, 0)} tests/s` },
      { name: 'ratio', value: fmt(ours / floor, 2), goal: '>= 0.5' },
    ]);
  });
}
