// The Decisions view at 20 stores × 500 tests (issue 22, item 3): the calls are made when results are
// written and read from a table, so the view's read is timed beside the work a settings change starts
// (every call made again by the core's background refresh: in place, and on the calls threads as the
// app's hosts run it).
import { join } from 'node:path';
import { createSimulator } from '#simulator/index';
import { openDatabase } from '#core/db/open';
import { readGlobalDecisionSettings } from '#core/decisions/basis';
import { staleCount } from '#core/decisions/stale';
import { writeGlobalDecisionSettings } from '#core/db/user/decisions';
import {
  callThreadCount,
  inPlaceCallMaker,
  sourceCallThread,
  threadCallMaker,
  type CallMaker,
} from '#core/decisions/call-threads';
import { createDecisionRefresh } from '#core/decisions/refresh';
import type { Db } from '#core/db/types';
import { decisionLines, decisionRows, storePositions } from '#core/db/cache/decisions';
import { decisionList } from '#core/services/decisions';
import { cacheSimulatedStores } from '../test/support/simulated-cache';
import { fmt, percentile, printFigures, timed, withTempDir } from './support';

const STORES = 20;
const TESTS = 500;

/**
 * Three settings changes, each followed by the refresh the core starts (every stale call of every
 * store made again): the median time, how long of it this thread (the core's, which reads and writes)
 * was busy, and how many calls each made.
 */
async function settingsChanges(
  db: Db,
  storeIds: readonly string[],
  at: string,
  maker: CallMaker,
  credibilities: readonly number[],
): Promise<{ ms: number; busyMs: number; decided: number }> {
  const settings = readGlobalDecisionSettings(db);
  const times: number[] = [];
  const busy: number[] = [];
  let decided = 0;
  for (const credibility of credibilities) {
    writeGlobalDecisionSettings(db, { ...settings, credibility }, at);
    decided = storeIds.reduce((n, storeId) => n + staleCount(db, storeId), 0);
    const started = performance.now();
    const loop = performance.eventLoopUtilization();
    const refresh = createDecisionRefresh({
      db,
      clock: () => Date.parse(at),
      maker,
      emit: () => {},
    });
    await refresh.request(null, false);
    times.push(performance.now() - started);
    busy.push(performance.eventLoopUtilization(loop).active);
  }
  times.sort((a, b) => a - b);
  busy.sort((a, b) => a - b);
  return { ms: percentile(times, 50), busyMs: percentile(busy, 50), decided };
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

    // A settings change: every call is stale and made again, in place and on the calls threads (their
    // start is timed too: the first change starts them).
    const inPlace = await settingsChanges(db, storeIds, at, inPlaceCallMaker(), [0.9, 0.95, 0.9]);
    const threads = threadCallMaker(sourceCallThread());
    const threaded = await settingsChanges(db, storeIds, at, threads, [0.95, 0.9, 0.95]);
    await threads.close();
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
          name: `settings change: every call made again in place (${inPlace.decided} tests), median of 3`,
          value: `${fmt(inPlace.ms, 0)} ms (${fmt((inPlace.ms / Math.max(1, inPlace.decided)) * 1000, 0)} µs a test)`,
          goal: '< 500 ms for 10,000',
        },
        {
          name: `the same on ${callThreadCount()} calls thread(s) beside the writer, as the app runs it (${threaded.decided} tests)`,
          value: `${fmt(threaded.ms, 0)} ms (${fmt((threaded.ms / Math.max(1, threaded.decided)) * 1000, 0)} µs a test; the writing thread busy ${fmt((threaded.busyMs / Math.max(1, threaded.decided)) * 1000, 0)} µs of it)`,
          goal: '< 500 ms for 10,000',
        },
      ],
    );
  });
}
