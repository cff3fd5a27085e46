// Review memory benchmarks: the sync overhead of writing snapshots, and the Changes view and portfolio at
// 20 stores × 500 tests × 50 snapshots each.
import { join } from 'node:path';
import type { Test } from '#shared/api/index';
import { createSimulator } from '#simulator/index';
import { insertStore } from '#core/db/cache/stores';
import { markReviewed, writeSnapshot } from '#core/db/history/review';
import { openDatabase } from '#core/db/open';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { listChanges } from '#core/review/changes';
import { portfolio } from '#core/review/portfolio';
import { recordSnapshots } from '#core/review/snapshots';
import { fmt, percentile, printFigures, timed, withTempDir } from './support';

const DAY_MS = 86_400_000;

function store(id: string) {
  return {
    id,
    name: `Store ${id}`,
    baseUrl: 'http://x',
    kind: 'api',
    keyStorage: 'none',
    createdAt: new Date().toISOString(),
  } as const;
}

export async function benchReview(): Promise<void> {
  await withTempDir(async (dir) => {
    // 1. Sync overhead: the ingest bench's 10,000 tests, then the snapshot pass over them.
    const sim = createSimulator({ seed: 9, stores: [{ name: 'Ingest', tests: 10_000 }] });
    const tests = sim.snapshot('Ingest').tests;
    const db = openDatabase(join(dir, 'ingest.db'), { userDataFile: join(dir, 'ingest-user.db') });
    insertStore(db, store('s'));
    const started = performance.now();
    for (let i = 0; i < tests.length; i += 100)
      upsertTests(db, {
        storeId: 's',
        tests: tests.slice(i, i + 100),
        runId: 'run',
        syncedAt: new Date().toISOString(),
      });
    const ingestMs = performance.now() - started;
    const t0 = performance.now();
    const first = recordSnapshots(db, 's', new Date().toISOString());
    const baselineMs = performance.now() - t0;
    const t1 = performance.now();
    const again = recordSnapshots(db, 's', new Date(Date.now() + 1000).toISOString());
    const unchangedMs = performance.now() - t1;
    db.close();

    // 2. The Changes view and the portfolio at 20 stores × 500 tests × 50 snapshots each.
    const big = openDatabase(join(dir, 'big.db'), { userDataFile: join(dir, 'big-user.db') });
    const now = Date.now();
    seed(big, tests, now);
    const reviewedAt = new Date(now - 7 * DAY_MS).toISOString();
    for (let s = 0; s < 20; s++) markReviewed(big, `s${s}`, reviewedAt);
    // What the Changes view asks for: each store's newest 50 lines (its page), every count.
    const input = { storeId: null, since: null, probabilityThreshold: 0.1, limit: 50 };
    const whole = { ...input, limit: null };
    const history = '2000-01-01T00:00:00.000Z';
    const lines = listChanges(big, whole).lines.length;
    const shown = listChanges(big, input).lines.length;
    const week = timed(30, () => listChanges(big, input));
    const everything = timed(10, () => listChanges(big, { ...input, since: history }));
    const weekWhole = timed(10, () => listChanges(big, whole));
    const everythingWhole = timed(10, () => listChanges(big, { ...whole, since: history }));
    const folio = timed(30, () => portfolio(big, now));
    big.close();

    printFigures('Review memory', [
      { name: 'ingest of 10,000 tests (as the ingest bench)', value: `${fmt(ingestMs, 0)} ms` },
      {
        name: 'snapshot pass, first sync (10,000 baselines)',
        value: `${fmt(baselineMs, 0)} ms (${first.written} written, ${fmt((100 * baselineMs) / ingestMs, 0)}% of the ingest)`,
      },
      {
        name: 'snapshot pass, nothing changed',
        value: `${fmt(unchangedMs, 0)} ms (${again.written} written)`,
      },
      {
        name: `Changes view, 20×500×50, a week since review p95 (${shown} of ${lines} lines: 50 a store)`,
        value: `${fmt(percentile(week, 95), 1)} ms (median ${fmt(percentile(week, 50), 1)} ms)`,
        goal: '< 50 ms',
      },
      {
        name: 'Changes view, 20×500×50, all history p95 (50 lines a store)',
        value: `${fmt(percentile(everything, 95), 1)} ms (median ${fmt(percentile(everything, 50), 1)} ms)`,
        goal: '< 50 ms',
      },
      {
        name: "every line (the CLI's review), a week / all history p95",
        value: `${fmt(percentile(weekWhole, 95), 1)} ms / ${fmt(percentile(everythingWhole, 95), 1)} ms`,
      },
      {
        name: 'portfolio, 20×500 p95',
        value: `${fmt(percentile(folio, 95), 1)} ms (median ${fmt(percentile(folio, 50), 1)} ms)`,
        goal: '< 50 ms',
      },
    ]);
  });
}

/**
 * 20 stores of 500 tests, each with a baseline and 49 daily snapshots: mostly drift, a real change every
 * 10th. Written as a sync writes them, so what the review memory keeps beside the snapshots is there.
 */
function seed(db: Db, tests: readonly Test[], now: number) {
  for (let s = 0; s < 20; s++) {
    const storeId = `s${s}`;
    insertStore(db, store(storeId));
    const slice = tests.slice(s * 500, s * 500 + 500);
    upsertTests(db, { storeId, tests: slice, runId: 'r', syncedAt: new Date(now).toISOString() });
    db.transaction(() => {
      for (const [i, test] of slice.entries()) {
        let p = 0.5;
        for (let k = 0; k < 50; k++) {
          const at = new Date(now - (49 - k) * DAY_MS).toISOString();
          const before = p;
          p = Math.min(0.99, Math.max(0.01, p + (((i * 7 + k * 13) % 11) - 5) / 100));
          const real = k > 0 && (k + i) % 10 === 0;
          const changes =
            k === 0
              ? {}
              : {
                  probabilityToWin: [before, p],
                  visitorsControl: [k * 100, k * 100 + 100],
                  ...(real ? { tier: ['learning', 'emerging'] } : {}),
                };
          const st = JSON.stringify({
            status: test.status,
            stage: test.stage,
            removed: false,
            tier: 'emerging',
            tiers: {},
            leader: 'variant',
            probabilityToWin: p,
            lift: 1.2,
            visitorsControl: k * 100 + 100,
            visitorsVariant: k * 100 + 90,
          });
          writeSnapshot(db, {
            storeId,
            testId: test.id,
            at,
            baseline: k === 0,
            drift: k > 0 && !real,
            probabilityToWin: p,
            state: st,
            changes: JSON.stringify(changes),
            resultsFetchedAt: null,
            tracked: JSON.stringify({ state: JSON.parse(st), meta: {} }),
          });
        }
      }
    })();
  }
}
