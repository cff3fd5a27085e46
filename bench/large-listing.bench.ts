// A store of 200,000 tests listed from the simulator (in a process of its own, over loopback): the pace of
// the listing per 10,000 tests, to show whether it stays constant as the cache grows (issue 46, item 13).
// BENCH_TESTS sets the store's size (default 200,000); the results, campaigns and audiences phases after
// the listing are not timed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createCore } from '#core/create-core';
import { createMemorySecretStore } from '#core/secrets/index';
import { syncAndWait } from '#core/sync/wait';
import { fmt, printFigures, withTempDir } from './support';

const TESTS = Number(process.env.BENCH_TESTS ?? 200_000);
const BLOCK = 10_000;
const PER_PAGE = 100;

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
      '9',
      '--stores',
      '1',
      '--tests',
      String(tests),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  lines.on('line', () => undefined);
  const { baseUrl, stores } = JSON.parse(first) as {
    baseUrl: string;
    stores: { apiKey: string }[];
  };
  return {
    baseUrl,
    apiKey: stores[0]?.apiKey ?? '',
    stop: () =>
      new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))),
  };
}

export async function benchLargeListing(): Promise<void> {
  const api = await startMockApi(TESTS);
  try {
    await withTempDir(async (dir) => {
      const core = await createCore({
        dataDir: dir,
        secrets: createMemorySecretStore(),
        host: 'cli',
        version: 'bench',
      });
      try {
        const store = await core.services.stores.add({
          name: 'Large',
          baseUrl: api.baseUrl,
          apiKey: api.apiKey,
          sessionOnly: true,
        });
        const started = performance.now();
        /** When the listing's count passed each block of 10,000 tests. */
        const passed: number[] = [];
        core.subscribe((event) => {
          if (event.name !== 'sync.progress' || event.payload.phase !== 'tests') return;
          while ((passed.length + 1) * BLOCK <= event.payload.done) passed.push(performance.now());
        });
        const report = await syncAndWait(core, store.id);
        const figures = passed.map((at, i) => {
          const seconds = (at - (i === 0 ? started : (passed[i - 1] ?? started))) / 1000;
          return {
            name: `tests ${(i * BLOCK).toLocaleString('en-US')}–${((i + 1) * BLOCK).toLocaleString('en-US')}`,
            value: `${fmt(BLOCK / PER_PAGE / seconds, 1)} pages/s (${fmt(seconds, 1)} s)`,
          };
        });
        figures.push({
          name: 'whole run',
          value: `${report.outcome}, ${report.testsSeen.toLocaleString('en-US')} tests, ${fmt((performance.now() - started) / 1000, 0)} s`,
        });
        printFigures(
          `Listing ${TESTS.toLocaleString('en-US')} tests, pace per ${BLOCK.toLocaleString('en-US')}`,
          figures,
        );
      } finally {
        await core.close();
      }
    });
  } finally {
    await api.stop();
  }
}
