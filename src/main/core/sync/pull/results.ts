// Pull phase 2: results of the launched tests that can have changed since they were fetched.
import { isLaunched } from '#shared/domain/lifecycle';
import { ApiError } from '../../api';
import { freshnessMaxAgeMs } from '#shared/contract/settings';
import { markResourceSynced } from '../../db/cache/sync-state';
import { readSettings } from '../../db/user/settings';
import {
  resultsCandidates,
  resultsCandidatesOf,
  resultsContext,
  writePreparedResults,
  type PreparedResults,
  type ResultsCandidate,
} from '../../db/cache/results';
import type { Db } from '../../db/types';
import { inPlaceDecoder, type ResultsDecoder } from '../decode/decoder';
import { isRunFatal } from '../outcome';
import { writeQueueOf } from './batched-writes';
import { keepAside, type PhaseContext } from './context';

/** Result requests in flight at once per store; the store's limiter still has the last word. */
export const RESULTS_CONCURRENCY = 8;

/**
 * How old a live test's cached results may be and still be used: the user's setting "Results of
 * active tests" (settings.resultsFreshness); Infinity for "only when I ask". Edited, newly ended and
 * never fetched tests are fetched whatever their age.
 */
export type ResultsFreshness = { now: string; liveMaxAgeMs: number };

/** The user's freshness setting as a maximum age; "only when I ask" never expires on its own. */
export function liveResultsMaxAgeMs(db: Db): number {
  return freshnessMaxAgeMs(readSettings(db).resultsFreshness) ?? Number.POSITIVE_INFINITY;
}

/** A launched test whose results must be (re)fetched, with what upsertResults records. */
export type TestNeedingResults = { id: string; updatedAt: string; status: string };

/**
 * The launched tests whose results can have changed since they were cached: never fetched, edited
 * since, changed status since (ended, paused, resumed), or active. Everything else is skipped, so a re-sync where nothing
 * changed asks for almost no results. With `freshness`, a live test's results younger than
 * `liveMaxAgeMs` are kept too (a sync right after a sync asks for nothing). Most recently updated first.
 */
export function testsNeedingResults(
  db: Db,
  storeId: string,
  freshness: ResultsFreshness | null = null,
): TestNeedingResults[] {
  const fresh = freshness
    ? { now: Date.parse(freshness.now), maxAgeMs: freshness.liveMaxAgeMs }
    : null;
  return resultsCandidates(db, storeId)
    .filter((test) => needsResults(test, fresh))
    .map(({ id, updatedAt, status }) => ({ id, updatedAt, status }));
}

function needsResults(
  test: ResultsCandidate,
  fresh: { now: number; maxAgeMs: number } | null,
): boolean {
  if (!isLaunched(test.status)) return false;
  if (
    test.fetchedAt === null ||
    test.fetchedForUpdatedAt === null ||
    test.fetchedForStatus === null
  )
    return true;
  if (test.updatedAt !== test.fetchedForUpdatedAt || test.status !== test.fetchedForStatus)
    return true;
  // Paused, suspended and ended tests gain no data while their status stays: their cached results
  // stand until the test changes. Only an active test's figures move on their own.
  if (test.status !== 'active') return false;
  // An unparseable time is never fresh: better one request too many than stale figures.
  const age = fresh ? fresh.now - Date.parse(test.fetchedAt) : Number.NaN;
  return !(age >= 0 && fresh !== null && age < fresh.maxAgeMs);
}

/** What happens next to a results request that failed: retried (server errors), or waits for a fix. */
function setAsideKindOf(error: unknown): 'transient' | 'refused' | 'invalid' {
  if (!(error instanceof ApiError) || error.kind === 'invalid-response') return 'invalid';
  if (error.retryable || (error.status !== null && error.status >= 500)) return 'transient';
  return 'refused';
}

/** Results being fetched for one run: started before the listing, fed by it, finished after it. */
export interface ResultsPull {
  /**
   * Tests a part of the listing just wrote: those that need results are fetched now, beside the rest
   * of the listing, so the store's rate limit is not left unused while the listing is written.
   */
  offer(testIds: readonly string[]): void;
  /**
   * Aborts when a results request or write meets a run-fatal error (the key refused, a full disk),
   * with that error as its reason: the listing stops at it, and the run reports it.
   */
  readonly failed: AbortSignal;
  /**
   * After the listing: fetches every other test that needs results (testsNeedingResults, less those
   * already taken in this run and unchanged since), waits for all, writes them, marks results synced.
   */
  finish(): Promise<void>;
  /** The listing failed: takes no more, waits for the requests in flight, keeps what was written. */
  abandon(): Promise<void>;
}

/** What a test was when this run took it: a test changed since (a shifted listing) is taken again. */
const takenAs = (test: TestNeedingResults) => `${test.updatedAt}\u0000${test.status}`;

/**
 * Starts fetching results for one run, `concurrency` requests at a time. Each answer is read (JSON,
 * schema, the cache write prepared) by `decoder`, on the sync thread's decoder thread or in place, and
 * written through the connection's write queue. Progress is the listing's until `finish`.
 */
export function startResults(
  ctx: PhaseContext,
  concurrency = RESULTS_CONCURRENCY,
  decoder: ResultsDecoder = inPlaceDecoder(),
): ResultsPull {
  const { db, storeId, client, signal, progress, counters } = ctx;
  const freshness = (): ResultsFreshness => ({
    now: ctx.now(),
    liveMaxAgeMs: liveResultsMaxAgeMs(db),
  });
  const queue: TestNeedingResults[] = [];
  const taken = new Map<string, string>();
  const workers = new Set<Promise<void>>();
  let done = 0;
  /** Tests taken in all; null while the listing goes on (its progress is shown then). */
  let total: number | null = null;
  let stopped = false;
  let fatal: unknown = null;
  const failing = new AbortController();
  const fail = (error: unknown): void => {
    fatal ??= error;
    failing.abort(fatal);
  };

  // Fetched results are written with every other run's on this connection (batched-writes.ts). A
  // write that fails ends the run, as it always did; what was fetched before it is kept.
  const writes = writeQueueOf(db);

  function advanced(): void {
    done += 1;
    if (total !== null) progress.report('results', done, total);
  }

  function fetched(test: TestNeedingResults, ready: PreparedResults): void {
    writes.add({
      write: () =>
        writePreparedResults(
          db,
          {
            storeId,
            testId: test.id,
            fetchedAt: ready.context.at,
            testUpdatedAt: test.updatedAt,
            testStatus: test.status,
          },
          ready,
        ),
      written: () => {
        counters.resultsFetched += 1;
        advanced();
      },
      failed: fail,
    });
  }

  async function fetchOne(test: TestNeedingResults): Promise<void> {
    try {
      counters.requests += 1;
      // The context (the test's record, the call's basis) is read when the answer is in hand.
      const read = (text: string) =>
        decoder.decode(text, resultsContext(db, storeId, test.id, ctx.now()));
      fetched(test, await client.getResultsWith(test.id, read, { signal }));
      return;
    } catch (error) {
      if (isRunFatal(error)) {
        fail(error);
        return;
      }
      // A launched test with no results yet is not a fault of the store.
      if (!(error instanceof ApiError && error.status === 404)) {
        // The cause in words ("Service unavailable. acme.example answered 503."), not the request line:
        // Sync issues names the test by its title.
        const message =
          error instanceof ApiError
            ? `${error.title}. ${error.detail}`
            : error instanceof Error
              ? error.message
              : String(error);
        const status = error instanceof ApiError ? error.status : null;
        keepAside(db, counters, {
          storeId,
          resource: 'results',
          recordId: test.id,
          error: message,
          raw: null,
          seenAt: ctx.now(),
          // A server error is retried at the next sync; a refusal waits for the server to change.
          kind: setAsideKindOf(error),
          status,
        });
        counters.setAside += 1;
      }
    }
    advanced();
  }

  async function worker(): Promise<void> {
    while (!stopped && fatal === null) {
      const test = queue.shift();
      if (!test) return;
      await fetchOne(test);
    }
  }

  function take(tests: readonly TestNeedingResults[]): void {
    for (const test of tests) {
      if (taken.get(test.id) === takenAs(test)) continue;
      taken.set(test.id, takenAs(test));
      queue.push(test);
    }
    // Each worker takes its first test at once: one started per queued test, up to `concurrency`.
    while (!stopped && workers.size < concurrency && queue.length > 0) {
      const running: Promise<void> = worker().finally(() => workers.delete(running));
      workers.add(running);
    }
  }

  async function settle(): Promise<void> {
    while (workers.size > 0) await Promise.all(workers);
    writes.flush();
  }

  return {
    offer(testIds) {
      if (stopped || fatal !== null) return;
      const fresh = freshness();
      const at = { now: Date.parse(fresh.now), maxAgeMs: fresh.liveMaxAgeMs };
      take(
        resultsCandidatesOf(db, storeId, testIds)
          .filter((test) => needsResults(test, at))
          .map(({ id, updatedAt, status }) => ({ id, updatedAt, status })),
      );
    },
    failed: failing.signal,
    async finish() {
      if (fatal === null) take(testsNeedingResults(db, storeId, freshness()));
      total = taken.size;
      progress.report('results', done, total);
      await settle();
      if (fatal !== null) throw fatal;
      markResourceSynced(db, storeId, 'results', ctx.now());
    },
    async abandon() {
      stopped = true;
      queue.length = 0;
      await settle();
    },
  };
}
