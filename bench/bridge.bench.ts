// Bridge-call latency during the heaviest sync: 20 stores syncing at once while a tests.list call is made every 10 ms, as the window would; with syncs on their own thread and, for comparison, on the main thread.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createCore } from '#core/create-core';
import { createMemorySecretStore } from '#core/secrets/index';
import { syncAndWait } from '#core/sync/wait';
import { sourceSyncThread } from '#core/sync/thread/source';
import { TestListInput } from '#shared/contract/index';
import { fmt, percentile, printFigures, withTempDir } from './support';

const STORES = 20;
const TESTS = Number(process.env.BENCH_BRIDGE_TESTS ?? 300);
const RATE = Number(process.env.BENCH_BRIDGE_RATE ?? 10);
const EVERY_MS = 10;

/** The simulator with STORES stores in a process of its own (its CPU is not the main process's). */
async function startMockApi() {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/simulator/serve.ts',
      '--port',
      '0',
      '--seed',
      '13',
      '--stores',
      String(STORES),
      '--tests',
      String(TESTS),
      '--rate',
      String(RATE),
      '--latency',
      '40-120',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve) => lines.once('line', resolve));
  lines.on('line', () => undefined);
  const { baseUrl, stores } = JSON.parse(first) as {
    baseUrl: string;
    stores: { name: string; apiKey: string; readOnly: boolean }[];
  };
  return {
    baseUrl,
    stores: stores.filter((s) => !s.readOnly),
    stop: () =>
      new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.kill('SIGTERM'))),
  };
}

/** The same measurement with syncs on their own thread (as every host runs them) and on the main thread. */
export async function benchBridge(): Promise<void> {
  await measure('sync thread (as the app runs)');
  await measure('in-thread (before the sync thread)');
}

async function measure(
  mode: 'sync thread (as the app runs)' | 'in-thread (before the sync thread)',
) {
  await withTempDir(async (dir) => {
    const api = await startMockApi();
    const core = await createCore({
      dataDir: dir,
      secrets: createMemorySecretStore(),
      host: 'cli',
      version: 'bench',
      ...(mode === 'sync thread (as the app runs)' ? { syncThread: sourceSyncThread() } : {}),
    });
    try {
      const ids: string[] = [];
      for (const store of api.stores) {
        const added = await core.services.stores.add({
          name: store.name,
          baseUrl: api.baseUrl,
          apiKey: store.apiKey,
          sessionOnly: true,
        });
        ids.push(added.id);
      }
      const input = TestListInput.parse({ storeId: null, limit: 100 });
      // Each sample: from when the call was due (its timer's deadline) to its answer, so a busy
      // event loop counts as the window would feel it.
      const samples: number[] = [];
      // The two parts of each sample: waiting for the event loop (the sync's work ahead of the call),
      // and the call's own work.
      const waits: number[] = [];
      const calls: number[] = [];
      let syncing = true;
      const probe = (async () => {
        while (syncing) {
          const due = performance.now() + EVERY_MS;
          await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
          const began = performance.now();
          await core.services.tests.list(input);
          const ended = performance.now();
          waits.push(Math.max(0, began - due));
          calls.push(ended - began);
          samples.push(ended - due);
        }
      })();
      const cpu = process.cpuUsage();
      const loop = performance.eventLoopUtilization();
      const started = performance.now();
      const reports = await Promise.all(ids.map((id) => syncAndWait(core, id)));
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const busy = performance.eventLoopUtilization(loop).utilization;
      syncing = false;
      await probe;
      const sorted = [...samples].sort((a, b) => a - b);
      printFigures(
        `Bridge-call latency, ${mode}, during a sync of ${STORES} stores × ${TESTS} tests at ${RATE} requests/s per key (answers delayed 40-120 ms; a tests.list of 100 rows every ${EVERY_MS} ms, in process, no IPC)`,
        [
          {
            name: 'outcomes',
            value: [...new Set(reports.map((r) => r.outcome))].join(', '),
          },
          { name: 'sync wall time', value: `${fmt(seconds)} s` },
          {
            name: 'process CPU during the sync (all threads)',
            value: `${fmt((used.user + used.system) / 1e6)} s (${fmt(((used.user + used.system) / 1e6 / seconds) * 100, 0)}% of one core)`,
          },
          { name: 'main thread busy (event-loop utilisation)', value: `${fmt(busy * 100, 0)}%` },
          { name: 'calls timed', value: String(samples.length) },
          { name: 'latency p50', value: `${fmt(percentile(sorted, 50), 1)} ms` },
          { name: 'latency p95', value: `${fmt(percentile(sorted, 95), 1)} ms`, goal: '< 50 ms' },
          { name: 'latency max', value: `${fmt(sorted.at(-1) ?? Number.NaN, 1)} ms` },
          {
            name: 'of which waiting for the event loop p95',
            value: `${fmt(
              percentile(
                [...waits].sort((a, b) => a - b),
                95,
              ),
              1,
            )} ms`,
          },
          {
            name: 'of which the call itself p95',
            value: `${fmt(
              percentile(
                [...calls].sort((a, b) => a - b),
                95,
              ),
              1,
            )} ms`,
          },
        ],
      );
    } finally {
      await core.close();
      await api.stop();
    }
  });
}
