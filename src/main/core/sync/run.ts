// A sync run of one store: takes the store's lock, pushes the outbox (core/outbox/), then runs the pull
// phases in order (tests, with the results of each written part fetched beside the listing; the rest of
// the results; campaigns; audiences), sends what still waits after an ok pull, and turns whatever
// happens into a report.
// A push alone (an edit made while online, the connection back) runs under the same lock, never beside a run.
import type { SyncProgress, SyncReport } from '#shared/contract/index';
import { appProblem } from '#shared/problem';
import type { ApiClient } from '../api';
import { clearSyncState } from '../db/cache/sync-state';
import { recordSyncOutcome } from '../db/cache/stores';
import type { Db } from '../db/types';
import { hasSendable, pushStore, type PushSummary } from '../outbox';
import { classifyFailure } from './outcome';
import { createProgressReporter, type ProgressReporter } from './progress';
import { noCounters, type PhaseContext, type RunCounters } from './pull/context';
import { pullAudiences, pullCampaigns } from './pull/lists';
import { startResults } from './pull/results';
import type { ResultsDecoder } from './decode/decoder';
import { LISTING_AHEAD, pullTests } from './pull/tests';
import { recordSnapshots } from '../review/snapshots';
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
  /** Reads results answers (sync/decode): on a thread of its own in the sync thread; default in place. */
  resultsDecoder?: ResultsDecoder;
  /** Takes a store's cross-process lock, or null when another process is syncing it. */
  lock?: StoreLocks;
  /** The outbox of a store changed (an edit sent, refused or held as a conflict). */
  onEditsChanged?(storeId: string): void;
  /** Keeps the pace the store's limiter learnt, so the next run starts there; called as a run ends. */
  rememberRate?(storeId: string): void;
}

export interface SyncEngine {
  /** Starts a sync of the store unless one runs; resolves with its report. */
  run(storeId: string): Promise<SyncReport>;
  isRunning(storeId: string): boolean;
  progress(storeId: string): SyncProgress | null;
  cancel(storeId: string): boolean;
  /** Resolves when the store has no run or push under way (at once when it has none). */
  whenIdle(storeId: string): Promise<void>;
  cancelAll(): Promise<void>;
  /** Cancels every run and lets go of what the engine holds (its thread, if it has one). */
  close(): Promise<void>;
  /**
   * Sends the store's outbox now, after any run or push in progress; null when nothing was sendable or
   * another process holds the store.
   */
  push(storeId: string): Promise<PushSummary | null>;
}

interface Running {
  controller: AbortController;
  progress: ProgressReporter;
  done: Promise<SyncReport>;
}

export const ANOTHER_PROCESS = appProblem(
  'conflict',
  409,
  'Already syncing in another window',
  'Another Splitbook process (the app or the command line) is syncing this store. Try again when it is done.',
);

/** Whether a run ended at once because another process held the store: nothing about the store itself. */
export function isAnotherProcess(problem: SyncReport['problem']): boolean {
  return problem?.type === ANOTHER_PROCESS.type && problem.title === ANOTHER_PROCESS.title;
}

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
  const pushes = new Map<
    string,
    { controller: AbortController; done: Promise<PushSummary | null> }
  >();
  const pushAgain = new Map<string, Promise<PushSummary | null>>();
  const now = () => new Date(deps.clock()).toISOString();
  const editsChanged = (storeId: string) => deps.onEditsChanged?.(storeId);

  async function pushOnly(storeId: string, signal: AbortSignal): Promise<PushSummary | null> {
    if (!hasSendable(deps.db, storeId)) return null;
    const lock = deps.lock ? deps.lock(storeId) : { release() {} };
    if (!lock) return null;
    try {
      const client = await deps.clientFor(storeId);
      return await pushStore({
        db: deps.db,
        storeId,
        client,
        signal,
        now,
        changed: () => editsChanged(storeId),
      });
    } catch {
      // No key at hand or the cache failed: the edits stay queued for the next attempt.
      return null;
    } finally {
      lock.release();
    }
  }

  function push(storeId: string): Promise<PushSummary | null> {
    const run = running.get(storeId);
    // A run pushes first; edits made while it pulled go out right after it.
    if (run) return run.done.then(() => push(storeId));
    const current = pushes.get(storeId);
    if (current) {
      let next = pushAgain.get(storeId);
      if (!next) {
        next = current.done.then(() => {
          pushAgain.delete(storeId);
          return push(storeId);
        });
        pushAgain.set(storeId, next);
      }
      return next;
    }
    const controller = new AbortController();
    const done = pushOnly(storeId, controller.signal).finally(() => pushes.delete(storeId));
    pushes.set(storeId, { controller, done });
    return done;
  }

  /** The store's outbox sent inside a run; the report counts both of a run's pushes. */
  async function pushInRun(
    ctx: PhaseContext,
    before: SyncReport['edits'],
  ): Promise<SyncReport['edits']> {
    const pushed = await pushStore({
      db: ctx.db,
      storeId: ctx.storeId,
      client: ctx.client,
      signal: ctx.signal,
      now,
      changed: () => editsChanged(ctx.storeId),
    });
    ctx.counters.requests += pushed.requests;
    return {
      sent: (before?.sent ?? 0) + pushed.sent,
      failed: (before?.failed ?? 0) + pushed.failed,
      conflicts: (before?.conflicts ?? 0) + pushed.conflicts,
      // A waiting record is tried again by every push: the last one says how many still wait.
      waiting: pushed.waiting,
    };
  }

  async function runStore(storeId: string, run: Omit<Running, 'done'>): Promise<SyncReport> {
    const startedAt = now();
    const counters: RunCounters = noCounters();
    let outcome: SyncReport['outcome'] = 'ok';
    let problem: SyncReport['problem'] = null;
    let edits: SyncReport['edits'];
    let lock: { release(): void } | null = null;
    // Everything that can fail, the lock included (a read-only or full disk), ends as the run's report.
    try {
      lock = deps.lock ? deps.lock(storeId) : { release() {} };
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
      // The results of the run are read on the decoder thread: started now, it is up when they come.
      deps.resultsDecoder?.warm();
      const ctx: PhaseContext = {
        db: deps.db,
        storeId,
        client: await deps.clientFor(storeId),
        signal: run.controller.signal,
        progress: run.progress,
        counters,
        now,
      };
      if (hasSendable(deps.db, storeId)) {
        edits = await pushInRun(ctx, edits);
        if (ctx.signal.aborted) throw new DOMException('Cancelled', 'AbortError');
      }
      // Results are fetched from the listing's first page on, beside the rest of it; a run-fatal
      // results error (the key refused, the disk full) stops the listing too.
      const results = startResults(ctx, deps.resultsConcurrency, deps.resultsDecoder);
      const listing = { ...ctx, signal: AbortSignal.any([ctx.signal, results.failed]) };
      try {
        await pullTests(listing, deps.perPage, LISTING_AHEAD, results);
      } catch (error) {
        await results.abandon();
        // Stopped by the results' failure: that is the run's error, not the listing's abort.
        throw results.failed.aborted ? results.failed.reason : error;
      }
      await results.finish();
      // The review memory: what changed since the last sync, appended to the user's file.
      recordSnapshots(deps.db, storeId, now());
      await pullCampaigns(ctx);
      await pullAudiences(ctx);
      clearSyncState(deps.db, storeId);
      if (counters.setAside > 0) {
        outcome = 'partial';
        problem = partialProblem(counters);
      } else if (hasSendable(deps.db, storeId)) {
        // The run ended ok: what still waits for this store goes now, under the same lock (edits made
        // while it pulled, a tag whose id a pulled test showed, the edits that waited for it). Every
        // host gets this, the CLI's sync included.
        edits = await pushInRun(ctx, edits);
      }
    } catch (error) {
      ({ outcome, problem } = classifyFailure(error));
    } finally {
      try {
        lock?.release();
      } catch (error) {
        console.error('[splitbook] could not release a store lock:', error);
      }
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
    return {
      storeId,
      outcome,
      startedAt,
      finishedAt,
      problem,
      ...counters,
      ...(edits ? { edits } : {}),
    };
  }

  return {
    run(storeId) {
      const existing = running.get(storeId);
      if (existing) return existing.done;
      const controller = new AbortController();
      const progress = createProgressReporter(storeId, deps.onProgress, deps.clock);
      const startedAt = now();
      // A push in flight holds the store's lock: the run starts when it ends.
      const before = pushes.get(storeId)?.done ?? Promise.resolve(null);
      const done = before
        .then(() => runStore(storeId, { controller, progress }))
        // A failure outside runStore's own net (a clock or progress callback that throws) still ends as a report.
        .catch((error: unknown): SyncReport => ({
          storeId,
          startedAt,
          finishedAt: now(),
          ...noCounters(),
          ...classifyFailure(error),
        }))
        .finally(() => running.delete(storeId))
        .then((report) => {
          try {
            deps.rememberRate?.(report.storeId);
          } catch (error) {
            // Only a head start for the next run is lost; the report still goes out.
            console.error('[splitbook] could not keep the learnt request rate:', error);
          }
          try {
            deps.onFinished(report);
          } catch (error) {
            console.error('[splitbook] a sync.finished listener failed:', error);
          }
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
    async whenIdle(storeId) {
      await Promise.allSettled([running.get(storeId)?.done, pushes.get(storeId)?.done]);
    },
    async cancelAll() {
      const all = [...running.values(), ...pushes.values()];
      for (const entry of all) entry.controller.abort();
      await Promise.allSettled(all.map((e) => e.done));
    },
    async close() {
      await this.cancelAll();
      await deps.resultsDecoder?.close();
    },
    push,
  };
}
