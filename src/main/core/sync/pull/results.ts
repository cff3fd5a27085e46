// Pull phase 2: results of the launched tests that can have changed since they were fetched.
import { isLaunched } from '#shared/domain/lifecycle';
import { ApiError, type Decoded } from '../../api';
import { freshnessMaxAgeMs } from '#shared/contract/settings';
import { markResourceSynced } from '../../db/cache/sync-state';
import { readSettings } from '../../db/user/settings';
import {
  cachedResultsOf,
  resultsCandidates,
  resultsCandidatesOf,
  type ResultsCandidate,
} from '../../db/cache/results';
import {
  resultsContext,
  writePreparedResults,
  type PreparedResults,
} from '../../decisions/results';
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
 * A test taken for results. One taken from a listing page before the page was written carries
 * `confirmed`: true once its row is written and still needs results, false when it was not (its
 * answer is then dropped, unread; one not yet asked for is not asked for at all).
 */
type TakenTest = TestNeedingResults & { confirmed?: Promise<boolean>; dropped?: boolean };

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

/** What the listing tells the results pull (pull/tests.ts): each page in hand, each part written. */
export interface ListingListener {
  /**
   * A listing page in hand, before any of it is written: its tests that need results, by the page's
   * own figures and the results cached, are asked for at once. Twenty stores' pages wait seconds for
   * their turn to be written; the stores' rate limits are not left unused meanwhile. An answer is read
   * and written only once `written` has confirmed its test.
   */
  listed(tests: readonly TestNeedingResults[]): void;
  /**
   * A part of the listing committed: `stored` of the tests it `held` are in the cache. Those that need
   * results, by their rows, are fetched (those asked for when listed, if unchanged, are confirmed);
   * those asked for when listed that are not stored, or need no results after all, are dropped.
   */
  written(stored: readonly string[], held: readonly string[]): void;
}

/** Results being fetched for one run: started before the listing, fed by it, finished after it. */
export interface ResultsPull extends ListingListener {
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

/** A test with no results cached. */
const NO_CACHED_RESULTS = { fetchedAt: null, fetchedForUpdatedAt: null, fetchedForStatus: null };

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
  const queue: TakenTest[] = [];
  const taken = new Map<string, string>();
  /** Tests taken from a listing page not yet written, by id: how to confirm or drop each. */
  const unconfirmed = new Map<string, { test: TakenTest; settle: (keep: boolean) => void }>();
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

  /** Confirms or drops a test taken from a listing page; a dropped one was never taken. */
  function confirm(id: string, keep: boolean): void {
    const entry = unconfirmed.get(id);
    if (!entry) return;
    unconfirmed.delete(id);
    if (!keep) {
      taken.delete(id);
      entry.test.dropped = true;
    }
    entry.settle(keep);
  }

  /** Drops every test still unconfirmed: the listing ended or stopped before writing them. */
  function dropUnconfirmed(): void {
    for (const id of [...unconfirmed.keys()]) confirm(id, false);
  }

  async function fetchOne(test: TakenTest): Promise<void> {
    /** False for a test taken from its listing page and then dropped: its answer is not ours to keep. */
    const kept = async () => (test.confirmed ? await test.confirmed : true);
    try {
      counters.requests += 1;
      // The context (the test's record, the call's basis) is read when the answer is in hand, and
      // the test's row is written.
      const read = async (text: string): Promise<Decoded<PreparedResults | null>> =>
        (await kept())
          ? decoder.decode(text, resultsContext(db, storeId, test.id, ctx.now()))
          : { kind: 'ok', value: null };
      const ready = await client.getResultsWith(test.id, read, { signal });
      if (ready !== null) fetched(test, ready);
      return;
    } catch (error) {
      if (isRunFatal(error)) {
        fail(error);
        return;
      }
      if (!(await kept())) return;
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
      // Dropped before it was asked for: its row did not want it.
      if (!test.dropped) await fetchOne(test);
    }
  }

  function take(tests: readonly TakenTest[]): void {
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

  const freshAt = () => {
    const fresh = freshness();
    return { now: Date.parse(fresh.now), maxAgeMs: fresh.liveMaxAgeMs };
  };

  return {
    listed(tests) {
      if (stopped || fatal !== null) return;
      const at = freshAt();
      const cached = cachedResultsOf(
        db,
        storeId,
        tests.map((test) => test.id),
      );
      const ahead: TakenTest[] = [];
      for (const { id, updatedAt, status } of tests) {
        // Taken already in this run (a listing that shifted lists a test twice): its row decides.
        if (taken.has(id)) continue;
        const basis = cached.get(id) ?? NO_CACHED_RESULTS;
        if (!needsResults({ id, updatedAt, status, ...basis }, at)) continue;
        let settle: (keep: boolean) => void = () => {};
        const test: TakenTest = {
          id,
          updatedAt,
          status,
          confirmed: new Promise<boolean>((resolve) => (settle = resolve)),
        };
        unconfirmed.set(id, { test, settle });
        ahead.push(test);
      }
      take(ahead);
    },
    written(stored, held) {
      const at = freshAt();
      const needed =
        stopped || fatal !== null
          ? []
          : resultsCandidatesOf(db, storeId, stored).filter((test) => needsResults(test, at));
      const rest: TestNeedingResults[] = [];
      for (const { id, updatedAt, status } of needed) {
        const test = { id, updatedAt, status };
        // Asked for when listed, and the row says the same: its answer may be kept.
        if (unconfirmed.has(id) && taken.get(id) === takenAs(test)) confirm(id, true);
        else rest.push(test);
      }
      // Asked for when listed, but not stored, not needing results, or changed by the write (an
      // unsent edit rebased on it): dropped, and taken again below by its row where it needs results.
      for (const id of held) confirm(id, false);
      take(rest);
    },
    failed: failing.signal,
    async finish() {
      dropUnconfirmed();
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
      dropUnconfirmed();
      await settle();
    },
  };
}
