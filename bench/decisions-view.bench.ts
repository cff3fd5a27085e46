// The Decisions view at 20 stores × 500 tests (issue 22, item 3): the calls are made when results are
// written and read from a table, so the view's read is timed beside the work a settings change starts
// (every call made again, a step at a time, as the core's background refresh does).
import { join } from 'node:path';
import { createSimulator } from '#simulator/index';
import { openDatabase } from '#core/db/open';
import {
  readGlobalDecisionSettings,
  refreshDecisionsStep,
  writeGlobalDecisionSettings,
} from '#core/db/cache/decisions';
import type { Db } from '#core/db/types';
import { decisionLines, decisionRows, storePositions } from '#core/db/cache/decisions';
import { decisionList } from '#core/services/decisions';
import { cacheSimulatedStores } from '../test/support/simulated-cache';
import { fmt, percentile, printFigures, timed, withTempDir } from './support';

const STORES = 20;
const TESTS = 500;

/** Every stale call of every store made again, in the refresh's steps; returns how many were made. */
function redecideAll(db: Db, storeIds: readonly string[], at: string): number {
  let decided = 0;
  for (const storeId of storeIds) {
    let afterSeq: number | null = 0;
    while (afterSeq !== null) {
      const step = refreshDecisionsStep(db, {
        storeId,
        afterSeq,
        limit: 50,
        deadline: Infinity,
        now: () => performance.now(),
        at,
      });
      decided += step.decided;
      afterSeq = step.afterSeq;
    }
  }
  return decided;
}

export async function benchDecisionsView(): Promise<void> {
  await withTempDir(async (dir) => {
    const sim = createSimulator({
      seed: 22,
      stores: Array.from({ length: STORES }, (_, i) => ({ name: `Store ${i + 1}` })),
      testsPerStore: TESTS,
    });
    const db = openDatabase(join(dir, 'cache.db'), { userDataFile: join(dir, 'user.db') });
    const at = new Date(sim.now()).toISOString();
    const writeStarted = performance.now();
    const { storeIds, withResults } = cacheSimulatedStores(db, sim, at);
    const writeMs = performance.now() - writeStarted;

    // What the view asks for on opening (decisions.lines): every call's line, without the basis text
    // (the selected test's detail shows it); and decisions.list, every field, as the CLI reads it.
    const view = timed(30, () => decisionList(decisionLines(db, null), storePositions(db)));
    const full = timed(30, () => decisionList(decisionRows(db, null), storePositions(db)));
    const rows = decisionLines(db, null).length;

    // A settings change: every call is stale and made again.
    const settings = readGlobalDecisionSettings(db);
    const redecide: number[] = [];
    let decided = 0;
    for (const credibility of [0.9, 0.95, 0.9]) {
      writeGlobalDecisionSettings(db, { ...settings, credibility }, at);
      const started = performance.now();
      decided = redecideAll(db, storeIds, at);
      redecide.push(performance.now() - started);
    }
    redecide.sort((a, b) => a - b);
    db.close();

    printFigures(
      `Decisions view, ${STORES} stores × ${TESTS} tests (${withResults} with results)`,
      [
        {
          name: "results written with their calls (the sync's share)",
          value: `${fmt(writeMs, 0)} ms, ${fmt((writeMs / withResults) * 1000, 0)} µs a test`,
        },
        {
          name: `Decisions view read p95 (${rows} rows: decisions.lines, each call's line without its basis)`,
          value: `${fmt(percentile(view, 95), 1)} ms (median ${fmt(percentile(view, 50), 1)} ms)`,
          goal: '< 50 ms',
        },
        {
          name: `every field of every call p95 (decisions.list, the CLI's)`,
          value: `${fmt(percentile(full, 95), 1)} ms`,
        },
        {
          name: `settings change: every call made again (${decided} tests), median of 3`,
          value: `${fmt(percentile(redecide, 50), 0)} ms (${fmt((percentile(redecide, 50) / Math.max(1, decided)) * 1000, 0)} µs a test)`,
          goal: '< 500 ms for 10,000',
        },
      ],
    );
  });
}
