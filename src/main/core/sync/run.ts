// The sync engine: pulls one store's tests, results, active campaigns and custom audiences into the cache.
import { randomUUID } from 'node:crypto';
import type { SyncProgress, SyncReport } from '../../../shared/contract';
import type { ApiClient, RecordList } from '../api/client';
import { ApiError } from '../api/errors';
import { appProblem } from '../../../shared/problem';
import {
  clearSyncState,
  countSeenInRun,
  getSyncState,
  markMissingRemoved,
  markResourceSynced,
  markSeenInRun,
  recordSyncOutcome,
  replaceCampaigns,
  replaceCustomAudiences,
  saveSyncState,
  setAside,
  testsNeedingResults,
  upsertResults,
  upsertTests,
  type Db,
} from '../db';
import { classifyFailure, isRunFatal } from './outcome';
import { createProgressReporter, type ProgressReporter } from './progress';
import type { StoreLocks } from './store-lock';

/**
 * Results of a live test fetched this recently are not asked for again: the API counts visitors by
 * the day, so a re-sync minutes later would fetch the same numbers. Edited, newly ended and never
 * fetched tests are fetched whatever their age.
 */
export const LIVE_RESULTS_MAX_AGE_MS = 15 * 60 * 1000;

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

/** What every phase of one run works with. */
interface RunContext {
  storeId: string;
  client: ApiClient;
  signal: AbortSignal;
  progress: ProgressReporter;
  counters: RunCounters;
}

interface RunCounters {
  requests: number;
  testsSeen: number;
  testsRemoved: number;
  resultsFetched: number;
  setAside: number;
}

export function createSyncEngine(deps: SyncEngineDeps): SyncEngine {
  const running = new Map<string, Running>();
  const perPage = deps.perPage ?? 100;
  const resultsConcurrency = deps.resultsConcurrency ?? 4;
  const iso = () => new Date(deps.clock()).toISOString();

  async function runStore(storeId: string, run: Omit<Running, 'done'>): Promise<SyncReport> {
    const startedAt = iso();
    const counters: RunCounters = {
      requests: 0,
      testsSeen: 0,
      testsRemoved: 0,
      resultsFetched: 0,
      setAside: 0,
    };
    const signal = run.controller.signal;
    let outcome: SyncReport['outcome'] = 'ok';
    let problem: SyncReport['problem'] = null;
    const lock = deps.lock ? deps.lock(storeId) : { release() {} };
    if (!lock) {
      return {
        storeId,
        outcome: 'error',
        startedAt,
        finishedAt: iso(),
        problem: appProblem('conflict', 409, 'Already syncing in another window', 'Another Splitbook process (the app or the command line) is syncing this store. Try again when it is done.'),
        ...counters,
      };
    }
    try {
      const client = await deps.clientFor(storeId);
      const ctx: RunContext = { storeId, client, signal, progress: run.progress, counters };
      await syncTests(ctx);
      await syncResults(ctx);
      await syncFullList(
        ctx,
        'campaigns',
        'campaign',
        (o) => client.listActiveCampaigns(o),
        (items, at) =>
          replaceCampaigns(
            deps.db,
            storeId,
            items.map((campaign) => ({ campaign, raw: campaign })),
            at,
          ),
      );
      await syncFullList(
        ctx,
        'audiences',
        'audience',
        (o) => client.listCustomAudiences(o),
        (items, at) =>
          replaceCustomAudiences(
            deps.db,
            storeId,
            items.map((audience) => ({ audience, raw: audience })),
            at,
          ),
      );
      clearSyncState(deps.db, storeId);
      if (counters.setAside > 0) outcome = 'partial';
    } catch (error) {
      ({ outcome, problem } = classifyFailure(error));
    } finally {
      lock.release();
    }
    const finishedAt = iso();
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

  /** All pages of GET /tests, each page written with the run's resume point in one transaction. */
  async function syncTests({
    storeId,
    client,
    signal,
    progress,
    counters,
  }: RunContext): Promise<void> {
    const saved = getSyncState(deps.db, storeId);
    const resume = saved && saved.phase === 'tests' ? saved : null;
    const runId = resume?.runId ?? randomUUID();
    const startedAt = resume?.startedAt ?? iso();
    let page = resume?.nextPage ?? 1;
    let totalCount: number | null = null;
    let countChanged = false;
    let pageLimit = Number.POSITIVE_INFINITY;
    saveSyncState(deps.db, storeId, {
      runId,
      phase: 'tests',
      nextPage: page,
      startedAt,
      updatedAt: iso(),
    });

    for (;;) {
      counters.requests += 1;
      const result = await client.listTests({ page, perPage }, { signal });
      const { pagination } = result;
      if (totalCount !== null && pagination.totalCount !== totalCount) countChanged = true;
      totalCount = pagination.totalCount;
      // A server whose page count keeps growing must not keep us paging forever.
      if (pageLimit === Number.POSITIVE_INFINITY)
        pageLimit = page + 2 * Math.max(0, pagination.totalPages - page) + 5;
      const syncedAt = iso();
      const nextPage = page + 1;
      deps.db.transaction(() => {
        upsertTests(
          deps.db,
          storeId,
          result.items.map((test) => ({ test, raw: test })),
          runId,
          syncedAt,
        );
        for (const rejected of result.rejected) {
          setAside(
            deps.db,
            storeId,
            'test',
            rejected.id,
            rejected.error,
            rejected.raw,
            syncedAt,
            runId,
          );
        }
        // A record set aside still exists on the server: it must not be marked removed.
        markSeenInRun(
          deps.db,
          storeId,
          result.rejected.flatMap((r) => (r.id ? [r.id] : [])),
          runId,
        );
        saveSyncState(deps.db, storeId, {
          runId,
          phase: 'tests',
          nextPage,
          startedAt,
          updatedAt: syncedAt,
        });
      })();
      counters.testsSeen += result.items.length;
      counters.setAside += result.rejected.length;
      progress.report(
        'tests',
        Math.min((page - 1) * perPage + result.items.length + result.rejected.length, totalCount),
        totalCount,
      );
      if (page >= pagination.totalPages || result.items.length + result.rejected.length === 0)
        break;
      if (page >= pageLimit) {
        countChanged = true;
        break;
      }
      page = nextPage;
    }

    // Only a complete, consistent listing may declare tests gone: if the store changed while we paged,
    // records can have shifted between pages and a missing one proves nothing.
    const seen = countSeenInRun(deps.db, storeId, runId);
    if (!countChanged && totalCount !== null && seen >= totalCount) {
      counters.testsRemoved = markMissingRemoved(deps.db, storeId, runId);
    }
    markResourceSynced(deps.db, storeId, 'tests', iso());
    saveSyncState(deps.db, storeId, {
      runId,
      phase: 'results',
      nextPage: null,
      startedAt,
      updatedAt: iso(),
    });
  }

  /** Results of launched tests that can have changed since they were fetched. */
  async function syncResults({
    storeId,
    client,
    signal,
    progress,
    counters,
  }: RunContext): Promise<void> {
    const due = testsNeedingResults(deps.db, storeId, {
      now: iso(),
      liveMaxAgeMs: LIVE_RESULTS_MAX_AGE_MS,
    });
    let done = 0;
    progress.report('results', 0, due.length);
    let next = 0;
    let fatal: unknown = null;

    async function worker(): Promise<void> {
      while (fatal === null && next < due.length) {
        const test = due[next++];
        if (!test) break;
        try {
          counters.requests += 1;
          const results = await client.getResults(test.id, { signal });
          upsertResults(
            deps.db,
            storeId,
            test.id,
            results,
            results,
            iso(),
            test.updatedAt,
            test.status,
          );
          counters.resultsFetched += 1;
        } catch (error) {
          if (isRunFatal(error)) {
            fatal = error;
            return;
          }
          // A launched test with no results yet is not a fault of the store.
          if (!(error instanceof ApiError && error.status === 404)) {
            const message = error instanceof Error ? error.message : String(error);
            setAside(deps.db, storeId, 'results', test.id, message, null, iso());
            counters.setAside += 1;
          }
        }
        done += 1;
        progress.report('results', done, due.length);
      }
    }

    await Promise.all(Array.from({ length: Math.min(resultsConcurrency, due.length) }, worker));
    if (fatal !== null) throw fatal;
    markResourceSynced(deps.db, storeId, 'results', iso());
  }

  /** A list the API returns whole (active campaigns, custom audiences): replaced in one transaction. */
  async function syncFullList<T>(
    { storeId, signal, progress, counters }: RunContext,
    phase: 'campaigns' | 'audiences',
    resource: 'campaign' | 'audience',
    fetchList: (options: { signal: AbortSignal }) => Promise<RecordList<T>>,
    replace: (items: T[], at: string) => void,
  ): Promise<void> {
    progress.report(phase, 0, null);
    counters.requests += 1;
    const result = await fetchList({ signal });
    const at = iso();
    deps.db.transaction(() => {
      replace(result.items, at);
      for (const rejected of result.rejected)
        setAside(deps.db, storeId, resource, rejected.id, rejected.error, rejected.raw, at);
      markResourceSynced(deps.db, storeId, phase, at);
    })();
    counters.setAside += result.rejected.length;
    progress.report(phase, result.items.length, result.items.length);
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
