// Scale benchmark: a full sync of 2,000, 10,000 and 50,000 tests — ms per test, peak memory, bytes per test on disk, and what a re-sync costs within and after the results' freshness window.
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { createCore, DATABASE_FILE } from '../src/main/core/create-core';
import { createMemorySecretStore } from '../src/main/core/secrets';
import { LIVE_RESULTS_MAX_AGE_MS } from '../src/main/core/sync/pull/results';
import { syncAndWait } from '../src/main/core/sync/wait';
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
        cache.close();
        const bytes = statSync(file).size;

        api.reset();
        const within = await syncAndWait(core, store.id);
        await settle();
        const withinCounts = { ...api.counts };

        const windowMinutes = LIVE_RESULTS_MAX_AGE_MS / 60_000;
        offsetMs += (windowMinutes + 1) * 60_000;
        await api.advanceMinutes(windowMinutes + 1);
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
            {
              name: `re-sync within the ${windowMinutes} min window: requests`,
              value: `${withinCounts.all} (${withinCounts.listing} listing pages; outcome ${within.outcome})`,
              goal: 'the listing pages plus the tests that changed',
            },
            {
              name: `re-sync ${windowMinutes + 1} min later: requests`,
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
