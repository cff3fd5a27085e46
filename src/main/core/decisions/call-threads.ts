// The calls threads: a settings change makes every call again, about a quarter of a millisecond each,
// most of it the engine's boundaries. The refresh (refresh.ts) reads and writes on the core's thread and
// hands the calls themselves (makeCall, from the facts kept beside the results) to one worker thread, so
// another core makes them and the thread that answers the window stays free. Why one, and not in place:
// bench/decisions-refresh.bench.ts, its figures in bench/README.md.
//
// The threads start with the first batch and end when idle. A thread that cannot start or dies is not
// a failed refresh: what it had in hand, and all that follows, is made in place by the same function.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { makeCall, type CallAnswer, type CallJob } from './calls';
import { idleTimer } from '../idle-timer';

/** Where the calls thread's code is: the built file in the app, the TypeScript source under tsx. */
export interface CallThreadOptions {
  file: string;
  execArgv?: string[];
}

export interface CallMaker {
  /** makeCall of each job, in order. */
  make(jobs: CallJob[]): Promise<CallAnswer[]>;
  /** Threads making calls (0: made in place, on the calling thread), running or to be started. */
  threads(): number;
  /** Threads running now (they end when idle). */
  running(): number;
  /** Ends the threads, if any run; later batches start them again. */
  close(): Promise<void>;
}

/** What a thread is sent, and what it answers (call-worker.ts). */
export type CallBatch = { id: number; jobs: CallJob[] };
export type CallBatchAnswer = { id: number; answers: CallAnswer[] };

/** Threads that have made nothing for this long are ended: an idle app holds no extra isolates. */
export const CALL_THREADS_IDLE_MS = 30_000;

/**
 * One thread beside the one the refresh reads and writes on, whatever the cores: in place, a settings
 * change over 10,000 tests does not finish within 3 s on two cores, and with one thread the writing
 * thread is already half the work (bench decisions-refresh; figures in bench/README.md).
 */
export function callThreadCount(): number {
  return 1;
}

/**
 * Calls made in place hold the thread this long at most before the event loop gets a turn: 50 calls
 * take 15-70 ms of the engine (bench decisions-refresh), and no turn may hold the window over 50 ms.
 */
export const IN_PLACE_SLICE_MS = 20;

/** Makes the calls in place, on the calling thread (the tests', the CLI's), a slice of time at a time. */
export function inPlaceCallMaker(): CallMaker {
  return {
    async make(jobs) {
      const answers: CallAnswer[] = [];
      let sliceFrom = performance.now();
      for (const job of jobs) {
        if (performance.now() - sliceFrom >= IN_PLACE_SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceFrom = performance.now();
        }
        answers.push(makeCall(job));
      }
      return answers;
    },
    threads: () => 0,
    running: () => 0,
    close: async () => undefined,
  };
}

type Pending = { jobs: CallJob[]; resolve: (answers: CallAnswer[]) => void };

export function threadCallMaker(
  options: CallThreadOptions,
  count: number = callThreadCount(),
  idleMs: number = CALL_THREADS_IDLE_MS,
): CallMaker {
  let workers: Worker[] = [];
  /** Set once a thread failed: every call from then on is made in place. */
  let broken = false;
  let nextId = 1;
  /** The batches sent and not answered, by id, with the thread each went to. */
  const pending = new Map<number, Pending & { worker: Worker }>();
  const idle = idleTimer(idleMs, () => {
    if (pending.size === 0) void stop();
  });

  /** A thread is gone: what any thread had in hand is made here, and so is everything after. */
  function fail(reason: unknown): void {
    if (!broken)
      console.error('[splitbook] a calls thread stopped; making calls in place:', reason);
    broken = true;
    const ending = workers;
    workers = [];
    for (const worker of ending) void worker.terminate();
    const left = [...pending.values()];
    pending.clear();
    for (const item of left) item.resolve(item.jobs.map(makeCall));
  }

  function start(): Worker {
    const started = new Worker(options.file, { execArgv: options.execArgv });
    // Never what keeps the process alive: a refresh waiting on a batch is held by the core.
    started.unref();
    started.on('message', ({ id, answers }: CallBatchAnswer) => {
      const item = pending.get(id);
      if (!item) return;
      pending.delete(id);
      item.resolve(answers);
      if (pending.size === 0) idle.arm();
    });
    started.on('error', fail);
    started.on('exit', (code) => {
      if (workers.includes(started)) fail(new Error(`exit code ${code}`));
    });
    return started;
  }

  async function stop(): Promise<void> {
    const ending = workers;
    workers = [];
    await Promise.all(ending.map((worker) => worker.terminate()));
  }

  /** The thread with the fewest batches in hand, the threads started if need be; null once one failed. */
  function leastBusy(): Worker | null {
    if (broken) return null;
    try {
      while (workers.length < count) workers.push(start());
    } catch (error) {
      fail(error);
      return null;
    }
    const load = new Map(workers.map((worker) => [worker, 0]));
    for (const item of pending.values()) load.set(item.worker, (load.get(item.worker) ?? 0) + 1);
    return workers.reduce((best, worker) =>
      (load.get(worker) ?? 0) < (load.get(best) ?? 0) ? worker : best,
    );
  }

  return {
    make(jobs) {
      if (jobs.length === 0) return Promise.resolve([]);
      return new Promise((resolve) => {
        const worker = leastBusy();
        if (!worker) return resolve(jobs.map(makeCall));
        idle.disarm();
        const id = nextId++;
        pending.set(id, { jobs, resolve, worker });
        worker.postMessage({ id, jobs } satisfies CallBatch);
      });
    },
    threads: () => (broken ? 0 : count),
    running: () => workers.length,
    async close() {
      idle.disarm();
      await stop();
      // A batch sent before the close still gets its calls.
      const left = [...pending.values()];
      pending.clear();
      for (const item of left) item.resolve(item.jobs.map(makeCall));
    },
  };
}

/**
 * The calls thread from the TypeScript source, under tsx (the CLI, the browser host, the tests), found
 * from this file's own location; the Electron build passes its bundled file instead (hosts/electron).
 */
export function sourceCallThread(): CallThreadOptions {
  const tsxLoader = createRequire(import.meta.url).resolve('tsx');
  return {
    file: fileURLToPath(new URL('./call-worker.ts', import.meta.url)),
    execArgv: ['--import', pathToFileURL(tsxLoader).href],
  };
}
