// Twenty stores at full rate (issue 22, item 6): STORES stores of TESTS tests each, every key limited to
// RATE requests a second, every answer delayed 40–120 ms (the project's simulator in a process of its
// own, bench/mock-stores.ts), synced all at once by a core as the app runs it (the sync thread), beside
// the floor: a naive serial client per store, all at once too. For each store, the requests answered
// (not 429) over what its bucket allowed in its run (R·T plus the burst it held at the start).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createCore } from '#core/create-core';
import { createMemorySecretStore } from '#core/secrets/index';
import { syncAndWait } from '#core/sync/wait';
import type { SyncThreadOptions } from '#core/sync/thread/protocol';
import { sourceSyncThread } from '#core/sync/thread/source';
import { isLaunched } from '#shared/domain/lifecycle';
import type { SyncReport } from '#shared/contract/index';
import { fmt, percentile, printFigures, withTempDir } from './support';

const STORES = Number(process.env.BENCH_STORES ?? 20);
const TESTS = Number(process.env.BENCH_TESTS ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 10);
const LATENCY = process.env.BENCH_LATENCY ?? '40-120';
/** Set to a folder to write a CPU profile of the sync thread there (node --cpu-prof). */
const PROFILE_DIR = process.env.BENCH_SYNC_PROFILE;

type MockStores = {
  baseUrl: string;
  stores: { name: string; apiKey: string }[];
  /** Answers per store since the last reset: not 429, and 429. */
  answered: number[];
  throttled: number[];
  reset(): void;
  /** The simulator process's CPU time so far in seconds (Linux's /proc); null where it cannot be read. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
};

/** A Linux process's user + system CPU seconds from /proc/<pid>/stat (clock ticks of 1/100 s). */
function procCpuSeconds(pid: number | undefined): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * This thread's CPU time (Node 22.19 and later: engines.node allows older 22s, where the sync thread's
 * share is not told apart).
 */
function mainThreadCpu(previous?: NodeJS.CpuUsage): NodeJS.CpuUsage | null {
  return typeof process.threadCpuUsage === 'function' ? process.threadCpuUsage(previous) : null;
}

async function startMockStores(): Promise<MockStores> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/mock-stores.ts',
      '--stores',
      String(STORES),
      '--tests',
      String(TESTS),
      '--rate',
      String(RATE),
      '--latency',
      LATENCY,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((done) => lines.once('line', done));
  const { baseUrl, stores } = JSON.parse(first) as Pick<MockStores, 'baseUrl' | 'stores'>;
  const answered = stores.map(() => 0);
  const throttled = stores.map(() => 0);
  lines.on('line', (line) => {
    const [index = '', status = ''] = line.split(' ');
    const i = Number(index);
    if (!(i >= 0 && i < stores.length)) return;
    if (status === '429') throttled[i] = (throttled[i] ?? 0) + 1;
    else answered[i] = (answered[i] ?? 0) + 1;
  });
  return {
    baseUrl,
    stores,
    answered,
    throttled,
    reset: () => {
      answered.fill(0);
      throttled.fill(0);
    },
    cpuSeconds: () => procCpuSeconds(child.pid),
    stop: () =>
      new Promise<void>((done) => (child.once('exit', () => done()), child.kill('SIGTERM'))),
  };
}

/** Answered requests over what the bucket allowed in `seconds`: its refill plus the burst it held. */
const ofAllowed = (answered: number, seconds: number) => answered / (RATE * seconds + RATE);

/** The naive client: every listing page, then each launched test's results, one at a time; a 429 waits a second. */
async function naiveSync(baseUrl: string, apiKey: string): Promise<void> {
  const get = async (path: string): Promise<unknown> => {
    for (;;) {
      const res = await fetch(`${baseUrl}/api/public/v1${path}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (res.status !== 429) return res.json();
      await res.arrayBuffer();
      await new Promise((done) => setTimeout(done, 1000));
    }
  };
  type Listing = { data: { id: string; status: string }[]; pagination: { totalPages: number } };
  const launched: string[] = [];
  for (let page = 1; ; page++) {
    const body = (await get(`/tests?page=${page}&perPage=100`)) as Listing;
    for (const test of body.data) if (isLaunched(test.status)) launched.push(test.id);
    if (page >= body.pagination.totalPages || body.data.length === 0) break;
  }
  for (const id of launched) await get(`/tests/${id}/results`);
}

const refill = () => new Promise((done) => setTimeout(done, 1500));

/**
 * The sync thread and its results decoder as the app runs them: the files `npm run bench` builds
 * (out/main), which start in tens of ms. Without a build, the source under tsx, which compiles for
 * about a second at each thread's start, inside the measured time: the bench says which it used.
 */
function appThreads(): SyncThreadOptions & { built: boolean } {
  const file = resolve('out/main/sync-worker.js');
  const decoder = resolve('out/main/results-decoder.js');
  if (existsSync(file) && existsSync(decoder))
    return { file, decoder: { file: decoder }, built: true };
  return { ...sourceSyncThread(), built: false };
}

/** "min–max (median m)" of finite figures. */
function spread(values: readonly number[], digits: number): string {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return 'not measured';
  return `${fmt(sorted[0] ?? 0, digits)}–${fmt(sorted.at(-1) ?? 0, digits)} (median ${fmt(percentile(sorted, 50), digits)})`;
}

/** "median (min–max)" with the count under a goal. */
function perStore(ratios: readonly number[]): string {
  const sorted = [...ratios].sort((a, b) => a - b);
  const under = sorted.filter((r) => r < 0.9).length;
  return `min ${fmt(sorted[0] ?? 0, 2)}, median ${fmt(percentile(sorted, 50), 2)}, max ${fmt(sorted.at(-1) ?? 0, 2)}; ${under} of ${sorted.length} stores under 0.9`;
}

export async function benchSyncStores(): Promise<void> {
  const mock = await startMockStores();
  try {
    // The floor: a naive serial client per store, all stores at once.
    await refill();
    mock.reset();
    const naiveStart = performance.now();
    const naiveSeconds = await Promise.all(
      mock.stores.map((store) =>
        naiveSync(mock.baseUrl, store.apiKey).then(() => (performance.now() - naiveStart) / 1000),
      ),
    );
    await new Promise((done) => setTimeout(done, 200)); // the last log lines
    const naive = naiveSeconds.map((s, i) => ofAllowed(mock.answered[i] ?? 0, s));
    const naiveAnswered = mock.answered.reduce((a, b) => a + b, 0);

    await withTempDir(async (dir) => {
      const { built, ...thread } = appThreads();
      if (PROFILE_DIR) mkdirSync(PROFILE_DIR, { recursive: true });
      const core = await createCore({
        dataDir: dir,
        secrets: createMemorySecretStore(),
        host: 'cli',
        version: 'bench',
        syncThread: {
          ...thread,
          execArgv: [
            ...(thread.execArgv ?? []),
            ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE_DIR)}`] : []),
          ],
        },
      });
      try {
        const ids: string[] = [];
        for (const store of mock.stores) {
          const added = await core.services.stores.add({
            name: store.name,
            baseUrl: mock.baseUrl,
            apiKey: store.apiKey,
            sessionOnly: false,
          });
          ids.push(added.id);
        }
        await refill();
        mock.reset();
        const cpu = process.cpuUsage();
        const mainCpu = mainThreadCpu();
        const simulatorCpu = mock.cpuSeconds();
        const started = performance.now();
        // When each store's listing was written in full (its first 'results' progress): its results
        // were asked for beside it, from its first written part on.
        const listed = new Map<string, number>();
        const offProgress = core.subscribe((event) => {
          if (event.name !== 'sync.progress') return;
          const { storeId, phase } = event.payload;
          if (phase === 'results' && !listed.has(storeId))
            listed.set(storeId, (performance.now() - started) / 1000);
        });
        const runs = await Promise.all(
          ids.map((id) =>
            syncAndWait(core, id).then((report) => ({
              report,
              seconds: (performance.now() - started) / 1000,
            })),
          ),
        );
        const wall = (performance.now() - started) / 1000;
        offProgress();
        const listingDone = ids.map((id) => listed.get(id) ?? Number.NaN);
        const used = process.cpuUsage(cpu);
        const usedByMain = mainCpu === null ? null : mainThreadCpu(mainCpu);
        const simulatorNow = mock.cpuSeconds();
        const simulatorSeconds =
          simulatorCpu === null || simulatorNow === null ? null : simulatorNow - simulatorCpu;
        await new Promise((done) => setTimeout(done, 200));
        const ours = runs.map((run, i) => ofAllowed(mock.answered[i] ?? 0, run.seconds));
        const answered = mock.answered.reduce((a, b) => a + b, 0);
        const throttled = mock.throttled.reduce((a, b) => a + b, 0);
        const outcomes = new Map<SyncReport['outcome'], number>();
        for (const { report } of runs)
          outcomes.set(report.outcome, (outcomes.get(report.outcome) ?? 0) + 1);
        const cpuSeconds = (used.user + used.system) / 1e6;
        // The rest of the process is the sync thread (with V8's helper threads): one thread, so at 100%
        // of one core its pace, not the keys', sets the rate.
        const threadSeconds =
          usedByMain === null ? null : cpuSeconds - (usedByMain.user + usedByMain.system) / 1e6;
        const requests = answered + throttled;
        printFigures(
          `Sync of ${STORES} stores × ${TESTS} tests at once, ${RATE} requests/s per key, answers delayed ${LATENCY} ms (simulator in its own process, real HTTP; Splitbook on its sync thread and results decoder, ${built ? 'built as the app ships them' : 'from the source under tsx: no build in out/main'}), beside a naive serial client per store`,
          [
            {
              name: 'Splitbook outcomes',
              value: [...outcomes].map(([o, n]) => `${n} ${o}`).join(', '),
            },
            {
              name: 'Splitbook wall time (last store done)',
              value: `${fmt(wall)} s; stores done in ${fmt(Math.min(...runs.map((r) => r.seconds)))}–${fmt(Math.max(...runs.map((r) => r.seconds)))} s`,
            },
            {
              name: 'Splitbook requests answered / 429',
              value: `${answered} / ${throttled}: ${fmt(answered / wall, 0)} answered/s in total, of ${STORES * RATE} allowed`,
            },
            {
              name: 'Splitbook per store: answered / (R·T + burst)',
              value: perStore(ours),
              goal: '≥ 0.9 for every store',
            },
            {
              name: "Splitbook: a store's listing written in full (its results asked for beside it)",
              value: `${spread(listingDone, 1)} s into the run`,
            },
            {
              name: 'Splitbook per store: answered a second over its run',
              value: `${spread(
                runs.map((run, i) => (mock.answered[i] ?? 0) / run.seconds),
                1,
              )} of ${RATE} allowed`,
            },
            {
              name: 'CPU of this process (core, sync thread, decoder thread)',
              value: `${fmt(cpuSeconds)} s, ${fmt((100 * cpuSeconds) / wall, 0)}% of one core`,
            },
            {
              name: "of which off the main thread (sync and decoder threads, V8's helpers)",
              value:
                threadSeconds === null
                  ? 'not measured (this Node has no process.threadCpuUsage)'
                  : `${fmt(threadSeconds)} s, ${fmt((100 * threadSeconds) / wall, 0)}% of one core: ${fmt((1000 * threadSeconds) / Math.max(1, requests), 1)} ms a request`,
            },
            {
              name: `CPU of the simulator's process (machine: ${availableParallelism()} cores)`,
              value:
                simulatorSeconds === null
                  ? 'not measured (no /proc)'
                  : `${fmt(simulatorSeconds)} s, ${fmt((100 * simulatorSeconds) / wall, 0)}% of one core`,
            },
            {
              name: 'naive clients: wall time (last store done)',
              value: `${fmt(Math.max(...naiveSeconds))} s, ${naiveAnswered} answered`,
            },
            { name: 'naive clients per store: answered / (R·T + burst)', value: perStore(naive) },
          ],
        );
      } finally {
        await core.close();
      }
      if (PROFILE_DIR) console.log(`  (CPU profile of the sync thread in ${resolve(PROFILE_DIR)})`);
    });
  } finally {
    await mock.stop();
  }
}
