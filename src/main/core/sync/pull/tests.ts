// Pull phase 1: every page of GET /tests, written in parts, the last with the run's resume point; the
// results of each page's tests are asked for as soon as it is in hand, and kept once its part is
// written (pull/results.ts, startResults).
import { randomUUID } from 'node:crypto';
import {
  countSeenInRun,
  markMissingRemoved,
  markSeenInRun,
  upsertTests,
} from '../../db/cache/tests';
import {
  countUnidentifiedTests,
  forgetUnidentifiedTests,
  listingPositionId,
} from '../../db/cache/set-aside';
import { getSyncState, markResourceSynced, saveSyncState } from '../../db/cache/sync-state';
import { writeTurn } from './batched-writes';
import { keepAside, type PhaseContext } from './context';
import type { ListingListener } from './results';
import { rebasePulledTests } from '../../outbox';

export const TESTS_PER_PAGE = 100;
/**
 * Listing pages asked for while the current one is written: with the one being read, as many pages
 * under way as the store's limiter lets through (8), so a rate limit of 50 requests/s is kept busy at
 * round trips up to 120 ms and an idle store's full bucket is used at the start (bench `listing`:
 * 0.89 of the limit at 5 ahead, 0.91-0.93 at 7, a few 429s).
 * Pages are still written one by one in order, each with its resume point.
 */
export const LISTING_AHEAD = 7;

/**
 * Tests of a listing page written in one transaction, in one turn of the sync thread's event loop:
 * about 15 ms, so every run's requests and answers go on between parts, and twenty stores' first tests
 * are in within a third of a second, their answers read and written (bench `sync-stores`).
 */
export const LISTING_WRITE_PART = 25;

/** `items` in consecutive parts of `size`; one empty part for none (a page of rejected records only). */
function partsOf<T>(items: readonly T[], size: number): T[][] {
  if (items.length === 0) return [[]];
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += size) parts.push(items.slice(i, i + size));
  return parts;
}

/**
 * Walks the listing, writing each page in parts, the last with the run's resume point. `listener`
 * hears each page as it comes in, and each part's stored tests once it is committed (the run fetches
 * their results from the first and keeps them after the second).
 */
export async function pullTests(
  ctx: PhaseContext,
  perPage = TESTS_PER_PAGE,
  ahead = LISTING_AHEAD,
  listener?: ListingListener,
): Promise<void> {
  const { db, storeId, progress, counters } = ctx;
  const saved = getSyncState(db, storeId);
  const resume = saved && saved.phase === 'tests' ? saved : null;
  const runId = resume?.runId ?? randomUUID();
  const startedAt = resume?.startedAt ?? ctx.now();
  const startPage = resume?.nextPage ?? 1;
  let totalCount: number | null = null;
  let countChanged = false;
  saveSyncState(db, storeId, {
    runId,
    phase: 'tests',
    nextPage: startPage,
    startedAt,
    updatedAt: ctx.now(),
  });

  // The client's one walker guards against a server that repeats or never ends its pages.
  for await (const result of ctx.client.walkTests({
    perPage,
    startPage,
    ahead,
    signal: ctx.signal,
  })) {
    counters.requests += 1;
    const { pagination } = result;
    if (totalCount !== null && pagination.totalCount !== totalCount) countChanged = true;
    if (result.shifted) countChanged = true;
    totalCount = pagination.totalCount;
    // The next page, and other stores' pages, are often in hand already. The page's results are asked
    // for now, and kept as each part is written. A page is written in parts of LISTING_WRITE_PART
    // tests, one part per turn of the event loop, with every run's requests going out between them
    // (batched-writes.ts, writeTurn). The resume point moves with the page's last part.
    listener?.listed(result.items);
    const syncedAt = ctx.now();
    const parts = partsOf(result.items, LISTING_WRITE_PART);
    const unstorable: { id: string; error: string }[] = [];
    let setAsideNow = 0;
    for (const [index, part] of parts.entries()) {
      await writeTurn(db);
      // Cancelled, or stopped by a run-fatal error elsewhere in the run, while waiting its turn.
      ctx.signal.throwIfAborted();
      const last = index === parts.length - 1;
      let stored: typeof part = [];
      db.transaction(() => {
        const refusedHere = upsertTests(db, { storeId, tests: part, runId, syncedAt });
        unstorable.push(...refusedHere);
        // A pull never overwrites an unsent edit: the server's record becomes its base, the edit goes on top.
        const unstorableIds = new Set(refusedHere.map((u) => u.id));
        stored = part.filter((test) => !unstorableIds.has(test.id));
        rebasePulledTests(db, storeId, stored, syncedAt);
        if (last) setAsideNow = endPage(unstorable);
      }).immediate();
      listener?.written(
        stored.map((test) => test.id),
        part.map((test) => test.id),
      );
    }

    /** In the page's last part: what the cache could not take is set aside, the resume point moves. */
    function endPage(unstorable: readonly { id: string; error: string }[]): number {
      // Records the cache could not take are set aside like invalid ones (their raw JSON cannot be kept).
      const refused = [
        ...result.rejected,
        ...unstorable.map((u) => ({ id: u.id, error: u.error, raw: null, index: null })),
      ];
      for (const rejected of refused) {
        // One without a readable id is named by its place in the listing (1 for the first test).
        const position =
          rejected.index === null ? null : (result.page - 1) * perPage + rejected.index + 1;
        keepAside(db, counters, {
          storeId,
          resource: 'test',
          recordId: rejected.id ?? (position === null ? null : listingPositionId(position)),
          error: rejected.error,
          raw: rejected.raw,
          seenAt: syncedAt,
          runId,
        });
      }
      // A record set aside still exists on the server: it must not be marked removed.
      markSeenInRun(db, {
        storeId,
        testIds: refused.flatMap((r) => (r.id ? [r.id] : [])),
        runId,
      });
      saveSyncState(db, storeId, {
        runId,
        phase: 'tests',
        nextPage: result.page + 1,
        startedAt,
        updatedAt: syncedAt,
      });
      return refused.length;
    }
    counters.testsSeen += result.items.length - (setAsideNow - result.rejected.length);
    counters.setAside += setAsideNow;
    const listed = (result.page - 1) * perPage + result.items.length + result.rejected.length;
    progress.report('tests', Math.min(listed, totalCount), totalCount);
  }

  // Only a complete, consistent listing may declare tests gone: if the store changed while we paged,
  // records can have shifted between pages and a missing one proves nothing. Nor does a listing with a
  // test known only by its position: it may be any cached test.
  forgetUnidentifiedTests(db, storeId, runId);
  const seen = countSeenInRun(db, storeId, runId);
  const unidentified = countUnidentifiedTests(db, storeId, runId);
  if (!countChanged && unidentified === 0 && totalCount !== null && seen >= totalCount) {
    counters.testsRemoved = markMissingRemoved(db, storeId, runId);
  }
  markResourceSynced(db, storeId, 'tests', ctx.now());
  saveSyncState(db, storeId, {
    runId,
    phase: 'results',
    nextPage: null,
    startedAt,
    updatedAt: ctx.now(),
  });
}
