// A settings change over 10,000 tests with results (issue 45, item 2): every call made again by the
// core's background refresh, a batch at a time, in place and with the one calls thread the hosts run.
// Printed: the whole refresh in seconds (wall, and this process's CPU, both threads), the longest time
// the main thread was held without a turn of its event loop (wall, and the main thread's own CPU), and
// the progress events told on the way. The goal is 3 s in all, no turn over 50 ms. On a machine shared
// with other work the wall time is partly waiting for a core; the CPU time is what it would take with
// a core of its own (figures in bench/README.md).
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createSimulator } from '#simulator/index';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { writeGlobalDecisionSettings } from '#core/db/user/decisions';
import { readGlobalDecisionSettings } from '#core/decisions/basis';
import { createDecisionRefresh } from '#core/decisions/refresh';
import {
  inPlaceCallMaker,
  sourceCallThread,
  threadCallMaker,
  type CallMaker,
} from '#core/decisions/call-threads';
import { staleCount } from '#core/decisions/stale';
import type { CoreEvent } from '#shared/contract/index';
import { cacheSimulatedStores } from '../test/support/simulated-cache';
import { fmt, percentile, printFigures, withTempDir, type Figure } from './support';

const STORES = 20;
/** Tests a store: about 69% of the simulator's tests have results, so 20 × 730 gives over 10,000 calls. */
const TESTS = Number(process.env.BENCH_REFRESH_TESTS_PER_STORE ?? 730);

/**
 * The longest gap between two turns of the event loop while `work` runs (the longest time it held the
 * thread), in wall time and in the main thread's own CPU time; the whole in wall and the process's CPU.
 */
async function heldWhile(work: () => Promise<void>): Promise<{
  ms: number;
  cpuMs: number;
  longestMs: number;
  longestCpuMs: number;
  gaps: number[];
}> {
  const gaps: number[] = [];
  const cpuGaps: number[] = [];
  const cpuNow = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  // A turn's CPU is the main thread's own (the calls thread's work is not a hold of the window).
  const threadCpuNow = (): number => {
    const { user, system } = process.threadCpuUsage();
    return (user + system) / 1000;
  };
  let last = performance.now();
  let lastCpu = threadCpuNow();
  let on = true;
  const chase = (): void => {
    const at = performance.now();
    const cpu = threadCpuNow();
    gaps.push(at - last);
    cpuGaps.push(cpu - lastCpu);
    last = at;
    lastCpu = cpu;
    if (on) setImmediate(chase);
  };
  setImmediate(chase);
  const started = performance.now();
  const startedCpu = cpuNow();
  await work();
  const ms = performance.now() - started;
  const cpuMs = cpuNow() - startedCpu;
  on = false;
  // A loop, not Math.max(...): waiting on the calls thread, the loop turns hundreds of thousands of times.
  const max = (values: readonly number[]): number => values.reduce((m, v) => (v > m ? v : m), 0);
  return { ms, cpuMs, longestMs: max(gaps), longestCpuMs: max(cpuGaps), gaps };
}

type Run = {
  ms: number;
  cpuMs: number;
  longestMs: number;
  longestCpuMs: number;
  p99: number;
  decided: number;
  progress: number;
};

/** Three settings changes, each followed by the refresh the core starts, its calls made by `maker`. */
async function changes(
  db: Db,
  storeIds: readonly string[],
  at: string,
  maker: CallMaker,
  credibilities: readonly number[],
): Promise<Run[]> {
  const settings = readGlobalDecisionSettings(db);
  const runs: Run[] = [];
  for (const credibility of credibilities) {
    writeGlobalDecisionSettings(db, { ...settings, credibility }, at);
    const decided = storeIds.reduce((n, storeId) => n + staleCount(db, storeId), 0);
    let progress = 0;
    const refresh = createDecisionRefresh({
      db,
      clock: () => Date.parse(at),
      maker,
      emit: (event: CoreEvent) => {
        if (event.name === 'decisions.progress') progress += 1;
      },
    });
    const held = await heldWhile(() => refresh.request(null, false));
    const sorted = [...held.gaps].sort((a, b) => a - b);
    runs.push({ ...held, p99: percentile(sorted, 99), decided, progress });
  }
  return runs;
}

function figures(name: string, runs: readonly Run[]): Figure[] {
  const byTime = [...runs].sort((a, b) => a.ms - b.ms);
  const median = byTime[1] ?? byTime[0];
  if (median === undefined) throw new Error('no run');
  return [
    {
      name: `${name}: every call made again (${median.decided} tests), median of 3`,
      value: `${fmt(median.ms / 1000, 2)} s wall, ${fmt(median.cpuMs / 1000, 2)} s CPU (runs: ${runs.map((r) => `${fmt(r.ms / 1000, 2)} s / ${fmt(r.cpuMs / 1000, 2)} s CPU`).join(', ')})`,
      goal: '≤ 3 s for 10,000',
    },
    {
      name: `${name}: longest turn of the main thread, worst of 3`,
      value: `${fmt(Math.max(...runs.map((r) => r.longestMs)), 1)} ms wall (p99 ${fmt(Math.max(...runs.map((r) => r.p99)), 1)} ms), ${fmt(Math.max(...runs.map((r) => r.longestCpuMs)), 1)} ms CPU`,
      goal: '≤ 50 ms',
    },
    {
      name: `${name}: progress events told (decisions.progress)`,
      value: runs.map((r) => String(r.progress)).join(', '),
    },
  ];
}

export async function benchDecisionsRefresh(): Promise<void> {
  await withTempDir(async (dir) => {
    const sim = createSimulator({
      seed: 45,
      stores: Array.from({ length: STORES }, (_, i) => ({ name: `Store ${i + 1}` })),
      testsPerStore: TESTS,
    });
    const db = openDatabase(join(dir, 'cache.db'), { userDataFile: join(dir, 'user.db') });
    const at = new Date(sim.now()).toISOString();
    const { storeIds } = cacheSimulatedStores(db, sim, at);
    const inPlace = await changes(db, storeIds, at, inPlaceCallMaker(), [0.9, 0.95, 0.9]);
    const thread = threadCallMaker(sourceCallThread(), 1);
    const threaded = await changes(db, storeIds, at, thread, [0.95, 0.9, 0.95]);
    await thread.close();
    db.close();
    printFigures(
      `Decisions refresh after a settings change (${STORES} stores × ${TESTS} tests; ${availableParallelism()} cores)`,
      [...figures('in place', inPlace), ...figures('one calls thread', threaded)],
    );
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await benchDecisionsRefresh();
