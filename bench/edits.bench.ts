// Edits: how long recording one takes (p50/p95 over 1,000), and how well pushing 1,000 queued edits uses a
// store limited to R requests per second (requests per edit; achieved rate / R, reads before writes counted).
import { performance } from 'node:perf_hooks';
import { createCore } from '#core/create-core';
import { createMemorySecretStore } from '#core/secrets/index';
import { syncAndWait } from '#core/sync/wait';
import { createSimulator } from '#simulator/index';
import { fmt, percentile, printFigures, withTempDir } from './support';

const EDITS = 1000;
const RATE = Number(process.env.BENCH_EDITS_RATE ?? 200);

export async function benchEdits(): Promise<void> {
  await withTempDir(async (dir) => {
    const sim = createSimulator({ seed: 3, stores: [{ name: 'Bench', tests: EDITS }] });
    const core = await createCore({
      dataDir: dir,
      secrets: createMemorySecretStore(),
      fetch: sim.fetch,
      host: 'cli',
      version: 'bench',
      pushOnEdit: false,
    });
    const apiKey = sim.stores[0]?.apiKey ?? '';
    const store = await core.services.stores.add({
      name: 'Bench',
      baseUrl: sim.baseUrl,
      apiKey,
      sessionOnly: true,
    });
    await syncAndWait(core, store.id);
    const tests = sim.snapshot('Bench').tests;

    const times: number[] = [];
    for (let i = 0; i < EDITS; i++) {
      const test = tests[i % tests.length];
      if (!test) continue;
      const started = performance.now();
      await core.services.edits.editTest({
        storeId: store.id,
        testId: test.id,
        changes: { title: `${test.title} (edited)` },
      });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);

    sim.setRate({ capacity: RATE, refillPerSecond: RATE });
    sim.resetStats();
    const started = performance.now();
    const [summary] = await core.services.edits.push({ storeId: store.id });
    const seconds = (performance.now() - started) / 1000;
    const stats = sim.stats();
    const answered = Object.values(stats.byRoute).reduce(
      (n, byStatus) =>
        n + Object.entries(byStatus).reduce((m, [status, c]) => m + (status === '429' ? 0 : c), 0),
      0,
    );
    const throttled = Object.values(stats.byRoute).reduce(
      (n, byStatus) => n + (byStatus['429'] ?? 0),
      0,
    );

    // Two edits of one test before a sync: the outbox sends them as one PATCH (after its one read).
    const TWICE = 100;
    sim.setRate({ capacity: 1_000_000, refillPerSecond: 1_000_000 });
    for (const test of tests.slice(0, TWICE)) {
      for (const changes of [{ title: `${test.title} (again)` }, { priority: 'high' as const }])
        await core.services.edits.editTest({ storeId: store.id, testId: test.id, changes });
    }
    sim.resetStats();
    await core.services.edits.push({ storeId: store.id });
    const patches = sim.stats().byRoute['PATCH /tests/{id}'] ?? {};
    const patchCount = Object.values(patches).reduce((n, c) => n + c, 0);
    await core.close();

    printFigures(`Edits (${EDITS} edits, store limited to ${RATE} req/s)`, [
      { name: 'record an edit p50', value: `${fmt(percentile(times, 50), 2)} ms` },
      { name: 'record an edit p95', value: `${fmt(percentile(times, 95), 2)} ms`, goal: '< 5 ms' },
      {
        name: 'edits sent',
        value: `${summary?.sent ?? 0} of ${EDITS}, ${summary?.failed ?? 0} failed`,
      },
      { name: 'requests per edit', value: fmt(answered / EDITS, 2) },
      { name: '429 answers', value: String(throttled) },
      { name: 'push time', value: `${fmt(seconds, 1)} s` },
      { name: 'achieved rate / R', value: fmt(answered / seconds / RATE, 2), goal: '>= 0.9' },
      {
        name: `two edits of one test: PATCHes a test (${TWICE} tests)`,
        value: fmt(patchCount / TWICE, 2),
        goal: '1',
      },
    ]);
  });
}
