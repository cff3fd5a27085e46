// A sync run of one store: takes the store's lock, then runs the pull phases in order (tests, results,
// campaigns, audiences) and turns whatever happens into a report. A push phase (sync/push/) goes first
// once the app has edits to send.
import type { SyncProgress, SyncReport } from '../../../shared/contract';
import { appProblem } from '../../../shared/problem';
import type { ApiClient } from '../api';
import { clearSyncState, recordSyncOutcome, type Db } from '../db';
import { classifyFailure } from './outcome';
import { createProgressReporter, type ProgressReporter } from './progress';
import type { PhaseContext, RunCounters } from './pull/context';
import { pullAudiences, pullCampaigns } from './pull/lists';
import { pullResults } from './pull/results';
import { pullTests } from './pull/tests';
import type { StoreLocks } from './store-lock';

export interface SyncEngineDeps {
  db: Db;
  /** The API client of a store, with that store's own limiter. Throws a ProblemError when no key is at hand. */
  clientFor(storeId: string): Promise<ApiClient>;
  clock: () => number;
  onProgress(progress: SyncProgress): void;
  onFinished(report: SyncReport): void;
  perPage?: number;
  /** Result requests in flight at once per store; the store's limiter still has the last word. */
  resultsConcurrency?: number;
  /** Takes a store's cross-process lock, or null when another process is syncing it. */
  lock?: StoreLocks;
}

export interface SyncEngine {
  /** Starts a sync of the store unless one runs; resolves with its report. */
  run(storeId: string): Promise<SyncReport>;
  isRunning(storeId: string): boolean;
  progress(storeId: string): SyncProgress | null;
  cancel(storeId: string): boolean;
  cancelAll(): Promise<void>;
}

interface Running {
  controller: AbortController;
  progress: ProgressReporter;
  done: Promise<SyncReport>;
}

const ANOTHER_PROCESS = appProblem(
  'conflict',
  409,
  'Already syncing in another window',
  'Another Splitbook process (the app or the command line) is syncing this store. Try again when it is done.',
);

/** A partial run's summary: how many records it could not take, and how many of them are not listed. */
function partialProblem(counters: RunCounters): SyncReport['problem'] {
  const n = counters.setAside;
  const unlisted = counters.setAsideNotListed;
  return appProblem(
    'partial',
    207,
    `${n.toLocaleString('en')} record${n === 1 ? '' : 's'} could not be taken`,
    `The rest of the store was synced. ${
      unlisted > 0
        ? `The first ${(n - unlisted).toLocaleString('en')} are listed under Sync issues; ${unlisted.toLocaleString('en')} more were only counted.`
        : 'They are listed under Sync issues.'
    }`,
  );
}

export function createSyncEngine(deps: SyncEngineDeps): SyncEngine {
  const running = new Map<string, Running>();
  const now = () => new Date(deps.clock()).toISOString();

  async function runStore(storeId: string, run: Omit<Running, 'done'>): Promise<SyncReport> {
    const startedAt = now();
    const counters: RunCounters = {
      requests: 0,
      testsSeen: 0,
      testsRemoved: 0,
      resultsFetched: 0,
      setAside: 0,
      setAsideNotListed: 0,
    };
    let outcome: SyncReport['outcome'] = 'ok';
    let problem: SyncReport['problem'] = null;
    const lock = deps.lock ? deps.lock(storeId) : { release() {} };
    if (!lock) {
      return {
        storeId,
        outcome: 'error',
        startedAt,
        finishedAt: now(),
        problem: ANOTHER_PROCESS,
        ...counters,
      };
    }
    try {
      const ctx: PhaseContext = {
        db: deps.db,
        storeId,
        client: await deps.clientFor(storeId),
        signal: run.controller.signal,
        progress: run.progress,
        counters,
        now,
      };
      await pullTests(ctx, deps.perPage);
      await pullResults(ctx, deps.resultsConcurrency);
      await pullCampaigns(ctx);
      await pullAudiences(ctx);
      clearSyncState(deps.db, storeId);
      if (counters.setAside > 0) {
        outcome = 'partial';
        problem = partialProblem(counters);
      }
    } catch (error) {
      ({ outcome, problem } = classifyFailure(error));
    } finally {
      lock.release();
    }
    const finishedAt = now();
    try {
      recordSyncOutcome(deps.db, storeId, {
        outcome,
        problem,
        finishedAt,
        lastSyncedAt: outcome === 'ok' || outcome === 'partial' ? finishedAt : null,
      });
    } catch (error) {
      // The cache itself failed (a full disk, say): the report still tells the user why.
      ({ outcome, problem } = classifyFailure(error));
    }
    return { storeId, outcome, startedAt, finishedAt, problem, ...counters };
  }

  return {
    run(storeId) {
      const existing = running.get(storeId);
      if (existing) return existing.done;
      const controller = new AbortController();
      const progress = createProgressReporter(storeId, deps.onProgress, deps.clock);
      const done = runStore(storeId, { controller, progress })
        .finally(() => running.delete(storeId))
        .then((report) => {
          deps.onFinished(report);
          return report;
        });
      running.set(storeId, { controller, progress, done });
      return done;
    },
    isRunning: (storeId) => running.has(storeId),
    progress: (storeId) => running.get(storeId)?.progress.current() ?? null,
    cancel(storeId) {
      const entry = running.get(storeId);
      if (!entry) return false;
      entry.controller.abort();
      return true;
    },
    async cancelAll() {
      const all = [...running.values()];
      for (const entry of all) entry.controller.abort();
      await Promise.allSettled(all.map((e) => e.done));
    },
  };
}
