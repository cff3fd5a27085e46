// Scale benchmark: a full sync of 2,000, 10,000 and 50,000 tests — ms per test, peak memory, bytes per test on disk, and what a re-sync costs within and after the results' freshness window.
import { spawn } from 'node:child_process';
import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { createCore, DATABASE_FILE } from '#core/create-core';
import { createMemorySecretStore } from '#core/secrets/index';
import {
  DEFAULT_RESULTS_FRESHNESS,
  freshnessMaxAgeMs,
  RESULTS_FRESHNESS_LABELS,
} from '#shared/contract/settings';
import { syncAndWait } from '#core/sync/wait';
import { fmt, printFigures, withTempDir } from './support';

const SIZES = (process.env.BENCH_SCALE_SIZES ?? '2000,10000,50000').split(',').map(Number);

/**
 * The simulator in a process of its own with no rate limit (the client's own cost is measured), one
 * store of `tests` tests; its clock moves when told to, as the core's does.
 */
async function startMockApi(tests: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/simulator/serve.ts',
      '--port',
      '0',
      '--seed',
      '11',
      '--tests',
      String(tests),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const counts = { all: 0, listing: 0 };
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  const { baseUrl, stores } = JSON.parse(first) as {
    baseUrl: string;
    stores: { apiKey: string; readOnly: boolean; name: string }[];
  };
  lines.on('line', (line) => {
    const [, path = ''] = line.split(' ');
    counts.all += 1;
    if (/\/tests(\?|$)/.test(path)) counts.listing += 1;
  });
  const key = stores.find((s) => !s.readOnly);
  return {
    baseUrl,
    apiKey: key?.apiKey ?? '',
    counts,
    reset: () => Object.assign(counts, { all: 0, listing: 0 }),
    advanceMinutes: async (minutes: number) => {
      child.stdin.write(`advance-minutes ${minutes}\n`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    },
    stop: () =>
      new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))),
  };
}

/** The window the default setting gives (the bench never changes the setting, as a new user would not). */
const WINDOW_MINUTES = (freshnessMaxAgeMs(DEFAULT_RESULTS_FRESHNESS) ?? 0) / 60_000;
/** The case: a consultant syncs again 20 minutes later (or halfway, for a shorter window). */
const WITHIN_MINUTES = Math.min(20, WINDOW_MINUTES / 2);

const settle = () => new Promise((resolve) => setTimeout(resolve, 200)); // the last log lines arrive

export async function benchScale(): Promise<void> {
  for (const tests of SIZES) {
    await withTempDir(async (dir) => {
      const api = await startMockApi(tests);
      // The core's clock and the simulator's move together: 16 minutes later is 16 minutes for both.
      let offsetMs = 0;
      const core = await createCore({
        dataDir: dir,
        secrets: createMemorySecretStore(),
        host: 'cli',
        version: 'bench',
        clock: () => Date.now() + offsetMs,
      });
      try {
        const store = await core.services.stores.add({
          name: 'Scale store',
          baseUrl: api.baseUrl,
          apiKey: api.apiKey,
          sessionOnly: true,
        });
        api.reset();
        const cpu = process.cpuUsage();
        const started = performance.now();
        const full = await syncAndWait(core, store.id);
        const seconds = (performance.now() - started) / 1000;
        const used = process.cpuUsage(cpu);
        const cpuSeconds = (used.user + used.system) / 1e6;
        await settle();
        const fullRequests = api.counts.all;

        // Bytes per test: the cache file once its write-ahead log is folded in.
        const file = join(dir, DATABASE_FILE);
        const cache = new Database(file);
        cache.pragma('busy_timeout = 5000');
        cache.pragma('wal_checkpoint(TRUNCATE)');
        const active = (
          cache
            .prepare(`SELECT count(*) AS n FROM tests WHERE status = 'active' AND removed = 0`)
            .get() as { n: number }
        ).n;
        // Where the bytes go: every table and index (dbstat), in bytes per test, largest first.
        const parts = cache
          .prepare(
            `SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 14`,
          )
          .all() as { name: string; bytes: number; payload: number }[];
        cache.close();
        if (process.env.BENCH_SCALE_KEEP) copyFileSync(file, process.env.BENCH_SCALE_KEEP);
        const bytes = statSync(file).size;

        offsetMs += WITHIN_MINUTES * 60_000;
        await api.advanceMinutes(WITHIN_MINUTES);
        api.reset();
        const within = await syncAndWait(core, store.id);
        await settle();
        const withinCounts = { ...api.counts };

        // Past the window, counted from the full sync's fetch.
        const afterMinutes = WINDOW_MINUTES + 1;
        offsetMs += (afterMinutes - WITHIN_MINUTES) * 60_000;
        await api.advanceMinutes(afterMinutes - WITHIN_MINUTES);
        api.reset();
        const after = await syncAndWait(core, store.id);
        await settle();
        const afterCounts = { ...api.counts };

        printFigures(
          `Scale: one store of ${tests} tests, no rate limit (simulator in its own process, real HTTP)`,
          [
            { name: 'full sync outcome', value: full.outcome },
            { name: 'full sync requests', value: String(fullRequests) },
            { name: 'full sync wall time', value: `${fmt(seconds)} s` },
            {
              name: 'ms per test (wall clock)',
              value: fmt((seconds * 1000) / tests, 2),
              goal: 'flat from 2,000 to 50,000',
            },
            {
              name: 'ms per test (CPU of the sync process)',
              value: fmt((cpuSeconds * 1000) / tests, 2),
            },
            {
              name: 'peak RSS of the bench process so far',
              value: `${fmt(process.resourceUsage().maxRSS / 1024, 0)} MB`,
            },
            { name: 'cache file after a WAL checkpoint', value: `${fmt(bytes / 1e6, 1)} MB` },
            { name: 'bytes per test', value: fmt(bytes / tests, 0), goal: '<= 10 KB' },
            ...parts.map((part) => ({
              name: `  of which ${part.name}`,
              value: `${fmt(part.bytes / tests, 0)} B/test (${fmt(part.payload / tests, 0)} of it data)`,
            })),
            {
              name: 'results freshness (the default setting)',
              value: `${RESULTS_FRESHNESS_LABELS[DEFAULT_RESULTS_FRESHNESS]} (${WINDOW_MINUTES} min)`,
            },
            {
              name: `re-sync ${WITHIN_MINUTES} min later, within the window: requests`,
              value: `${withinCounts.all} (${withinCounts.listing} listing pages; outcome ${within.outcome})`,
              goal: 'the listing pages plus the tests that changed',
            },
            {
              name: `re-sync ${afterMinutes} min later, after the window: requests`,
              value: `${afterCounts.all} (${afterCounts.listing} listing pages; ${active} active tests; outcome ${after.outcome})`,
              goal: 'the listing pages plus the active and changed tests',
            },
          ],
        );
      } finally {
        await core.close();
        await api.stop();
      }
    });
  }
}
