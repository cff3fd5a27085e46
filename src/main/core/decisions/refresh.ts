// Makes stale decisions again in the background: at core start (calls of an older version, results cached
// before decisions were stored) and after the decision settings or a test's plan change. A short step per
// tick of the event loop, so a cache of thousands of tests never holds up the window's first paint.
import type { CoreEvent } from '#shared/contract/index';
import { listStoreRows } from '../db/cache/stores';
import { refreshDecisionsStep, staleCount } from '../db/cache/decisions';
import type { Db } from '../db/types';

/** Rows and milliseconds per step: under a millisecond a call from its facts, so a step stays well under a frame or two. */
export const REFRESH_STEP_ROWS = 50;
export const REFRESH_STEP_MS = 25;
/**
 * A refresh says how far it is (decisions.progress) once it has run this long, then at most every
 * PROGRESS_EVERY_MS: a settings change over thousands of tests takes seconds, and the window says so.
 */
export const PROGRESS_AFTER_MS = 1000;
export const PROGRESS_EVERY_MS = 250;

export interface DecisionRefresh {
  /**
   * Makes every missing or stale call of a store (null: of every store) again, a step per tick; emits
   * `decisions.changed` for that scope when done, always when `announce`, else only if a call changed.
   * Resolves when the scope is done. Asking again for a scope under way starts it over.
   */
  request(storeId: string | null, announce: boolean): Promise<void>;
  /** Resolves once nothing is under way (at once when nothing is). */
  idle(): Promise<void>;
  /** Stops between steps (the connection is about to close); whoever waits is let go. */
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

export function createDecisionRefresh(deps: {
  db: Db;
  clock: () => number;
  emit(event: CoreEvent): void;
  /** The time source of a step's budget (the clock may be a test's fixed one). */
  now?: () => number;
}): DecisionRefresh {
  const { db, clock, emit } = deps;
  const now = deps.now ?? (() => performance.now());
  const jobs: Job[] = [];
  let idleWaiters: (() => void)[] = [];
  let scheduled: NodeJS.Immediate | null = null;
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
      // Only the progress's total is lost: the steps report their own failure.
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

  function schedule(): void {
    if (scheduled === null && !stopped) scheduled = setImmediate(tick);
  }

  function finish(job: Job): void {
    jobs.splice(jobs.indexOf(job), 1);
    tell(job, true);
    if (job.announce || job.decided > 0) {
      emit({ name: 'decisions.changed', payload: { storeId: job.storeId } });
    }
    for (const resolve of job.waiters) resolve();
    if (jobs.length === 0) release();
  }

  function release(): void {
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function tick(): void {
    scheduled = null;
    const job = jobs[0];
    if (stopped || job === undefined) return;
    const storeId = job.stores[0];
    if (storeId === undefined) {
      finish(job);
      schedule();
      return;
    }
    try {
      const step = refreshDecisionsStep(db, {
        storeId,
        afterSeq: job.afterSeq,
        limit: REFRESH_STEP_ROWS,
        deadline: now() + REFRESH_STEP_MS,
        now,
        at: new Date(clock()).toISOString(),
      });
      job.decided += step.decided;
      job.done += step.decided;
      tell(job, false);
      if (step.afterSeq === null) {
        job.stores.shift();
        job.afterSeq = 0;
      } else {
        job.afterSeq = step.afterSeq;
      }
    } catch (error) {
      // A closed or unusable connection (the cache rebuilt, the disk gone): the next request or
      // start-up tries again; the error is not swallowed.
      console.error('[splitbook] decisions could not be brought up to date:', error);
      job.stores.shift();
      job.afterSeq = 0;
    }
    schedule();
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
        schedule();
      });
    },
    idle() {
      if (jobs.length === 0 || stopped) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    stop() {
      stopped = true;
      if (scheduled !== null) clearImmediate(scheduled);
      scheduled = null;
      for (const job of jobs.splice(0)) for (const resolve of job.waiters) resolve();
      release();
    },
  };
}
