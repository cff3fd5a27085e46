// Makes stale decisions again in the background: at core start (calls of an older version, results cached
// before decisions were stored) and after the decision settings or a test's plan change. A batch at a
// time: read here (a few milliseconds), its calls made on the calls threads (call-threads.ts, or in place
// in slices of 20 ms) while the next batch is read and the one before written, then written here in one
// short transaction, each in a turn of its own, so a cache of thousands of tests never holds up the
// window's first paint or any of its requests for over 50 ms, and other cores do the engine's work.
import type { CoreEvent } from '#shared/contract/index';
import { listStoreRows } from '../db/cache/stores';
import { callJobs, readStaleCalls, staleCount, writeStaleCalls, type StaleCalls } from './stale';
import type { CallAnswer } from './calls';
import type { Db } from '../db/types';
import { inPlaceCallMaker, type CallMaker } from './call-threads';

/** Calls a batch: about 10 ms of the engine's work, made in place or on a calls thread. */
export const REFRESH_BATCH_ROWS = 50;
/**
 * A refresh says how far it is (decisions.progress) once it has run this long, then at most every
 * PROGRESS_EVERY_MS: a settings change over thousands of tests takes seconds, and the window says so.
 */
export const PROGRESS_AFTER_MS = 1000;
export const PROGRESS_EVERY_MS = 250;

export interface DecisionRefresh {
  /**
   * Makes every missing or stale call of a store (null: of every store) again, a batch at a time;
   * emits `decisions.changed` for that scope when done, always when `announce`, else only if a call
   * changed. Resolves when the scope is done. Asking again for a scope under way starts it over.
   */
  request(storeId: string | null, announce: boolean): Promise<void>;
  /** Resolves once nothing is under way (at once when nothing is). */
  idle(): Promise<void>;
  /** Stops between batches (the connection is about to close); whoever waits is let go. */
  stop(): void;
}

type Job = {
  storeId: string | null;
  announce: boolean;
  /** The stores left to walk, and where the first one's walk is. */
  stores: string[];
  afterSeq: number;
  decided: number;
  waiters: (() => void)[];
  /** Calls made since the job (re)started, of `total` (counted when first told); when it (re)started. */
  done: number;
  total: number | null;
  startedAt: number;
  /** When progress was last told, or null while it has not been. */
  toldAt: number | null;
};

/** A batch read, its calls being made. */
type InFlight = { job: Job; batch: StaleCalls; answers: Promise<CallAnswer[]> };

/** Lets the event loop answer what waits (the window's requests) between two batches. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function createDecisionRefresh(deps: {
  db: Db;
  clock: () => number;
  emit(event: CoreEvent): void;
  /** Who makes the calls: the calls threads in the hosts; in place by default. */
  maker?: CallMaker;
  /** The time source of the progress (the clock may be a test's fixed one). */
  now?: () => number;
}): DecisionRefresh {
  const { db, clock, emit } = deps;
  const maker = deps.maker ?? inPlaceCallMaker();
  const now = deps.now ?? (() => performance.now());
  const jobs: Job[] = [];
  let idleWaiters: (() => void)[] = [];
  let running: Promise<void> | null = null;
  let stopped = false;

  const storesOf = (storeId: string | null): string[] =>
    storeId === null ? listStoreRows(db).map((store) => store.id) : [storeId];

  /** The job's walk from the start. */
  function begin(
    job: Pick<Job, 'storeId'>,
  ): Pick<Job, 'stores' | 'afterSeq' | 'done' | 'total' | 'startedAt'> {
    return { stores: storesOf(job.storeId), afterSeq: 0, done: 0, total: null, startedAt: now() };
  }

  /**
   * The calls the job has to make in all: those made, and those its stores still hold stale. Counted
   * only once it is told (a refresh over a second), never on the way to the window's first paint.
   */
  function totalOf(job: Job): number {
    let left = 0;
    try {
      for (const store of job.stores) left += staleCount(db, store);
    } catch (error) {
      // Only the progress's total is lost: the batches report their own failure.
      console.error('[splitbook] stale calls could not be counted:', error);
    }
    return job.done + left;
  }

  /** Tells the job's progress, at most every PROGRESS_EVERY_MS once it has run PROGRESS_AFTER_MS; `last` always, once told. */
  function tell(job: Job, last: boolean): void {
    const at = now();
    if (job.toldAt === null) {
      if (last || at - job.startedAt < PROGRESS_AFTER_MS) return;
    } else if (!last && at - job.toldAt < PROGRESS_EVERY_MS) return;
    job.toldAt = at;
    job.total ??= totalOf(job);
    // A sync may make more calls stale while this runs: the total is never below what was done.
    const total = Math.max(job.total, job.done);
    emit({
      name: 'decisions.progress',
      payload: { storeId: job.storeId, done: last ? total : job.done, total },
    });
  }

  function finish(job: Job): void {
    jobs.splice(jobs.indexOf(job), 1);
    try {
      tell(job, true);
      if (job.announce || job.decided > 0) {
        emit({ name: 'decisions.changed', payload: { storeId: job.storeId } });
      }
    } finally {
      for (const resolve of job.waiters) resolve();
    }
  }

  function release(): void {
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * The job's next batch, read where its walk is, and the walk moved on; null when the walk is over.
   * A store that cannot be read (the cache rebuilt, the disk gone) is logged and left: the next request
   * or start-up tries again.
   */
  function readNext(job: Job): StaleCalls | null {
    for (;;) {
      const storeId = job.stores[0];
      if (storeId === undefined) return null;
      try {
        const batch = readStaleCalls(db, {
          storeId,
          afterSeq: job.afterSeq,
          limit: REFRESH_BATCH_ROWS,
        });
        if (batch.afterSeq === null) {
          job.stores.shift();
          job.afterSeq = 0;
        } else {
          job.afterSeq = batch.afterSeq;
        }
        if (batch.calls.length > 0) return batch;
      } catch (error) {
        console.error('[splitbook] decisions could not be brought up to date:', error);
        job.stores.shift();
        job.afterSeq = 0;
      }
    }
  }

  /**
   * Writes a batch whose calls are made; a failure is logged, and the rows stay stale for the next
   * refresh. Whether it was written (then its progress is told, in a turn of its own: toldOf).
   */
  function write(item: InFlight, answers: CallAnswer[]): boolean {
    try {
      const written = writeStaleCalls(db, item.batch, answers, new Date(clock()).toISOString());
      item.job.decided += written;
      item.job.done += written;
      return true;
    } catch (error) {
      console.error('[splitbook] decisions could not be brought up to date:', error);
      return false;
    }
  }

  /** Tells the job's progress after a batch was written (its first total counted here); a failure is logged. */
  function toldOf(job: Job): void {
    try {
      tell(job, false);
    } catch (error) {
      console.error('[splitbook] decisions could not be brought up to date:', error);
    }
  }

  /**
   * Walks the jobs, first come first: as many batches in hand as there are calls threads and one more,
   * so the threads are never idle while this thread reads and writes. A job asked for again mid-walk
   * starts over from its first store; the batches already in hand are still written (each call goes
   * with the key it was made with, and only while its row still needs it).
   */
  async function walk(): Promise<void> {
    // Never on the caller's turn: a request at start-up returns before any call is read.
    await turn();
    const inFlight: InFlight[] = [];
    const depth = maker.threads() + 1;
    for (;;) {
      if (stopped) return;
      const job = jobs[0];
      if (job === undefined) return;
      while (inFlight.length < depth) {
        const batch = readNext(job);
        if (batch === null) break;
        inFlight.push({ job, batch, answers: maker.make(callJobs(batch)) });
      }
      const item = inFlight.shift();
      if (item === undefined) {
        finish(job);
        continue;
      }
      const answers = await item.answers.catch((error: unknown) => {
        console.error('[splitbook] decisions could not be made:', error);
        return [];
      });
      if (stopped) return;
      // The write, and then its progress (the first total counts every store's stale rows, about
      // 1 ms a store), each in a turn of its own, never after the last calls made in place or a read:
      // no turn holds the window over 50 ms (bench decisions-refresh).
      await turn();
      if (stopped) return;
      const written = write(item, answers);
      await turn();
      if (stopped) return;
      if (written) toldOf(item.job);
      await turn();
    }
  }

  function kick(): void {
    if (running !== null || stopped) return;
    running = walk()
      // Nothing of the walk is meant to throw (reads, writes and makes report their own failures):
      // whatever does is logged, never an unhandled rejection, and the next job goes on.
      .catch((error: unknown) => console.error('[splitbook] the decisions refresh failed:', error))
      .finally(() => {
        running = null;
        if (jobs.length === 0 || stopped) release();
        else kick();
      });
  }

  return {
    request(storeId, announce) {
      if (stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const running = jobs.find((job) => job.storeId === storeId);
        if (running) {
          // The settings moved again: every row must be checked against the new key, from the start.
          Object.assign(running, begin(running));
          running.announce ||= announce;
          running.waiters.push(resolve);
        } else {
          jobs.push({
            storeId,
            announce,
            decided: 0,
            waiters: [resolve],
            toldAt: null,
            ...begin({ storeId }),
          });
        }
        kick();
      });
    },
    idle() {
      if ((jobs.length === 0 && running === null) || stopped) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    stop() {
      stopped = true;
      for (const job of jobs.splice(0)) for (const resolve of job.waiters) resolve();
      release();
    },
  };
}
