// Pull phase 1: every page of GET /tests, each written with the run's resume point in one transaction.
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
import { keepAside, type PhaseContext } from './context';
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

export async function pullTests(
  ctx: PhaseContext,
  perPage = TESTS_PER_PAGE,
  ahead = LISTING_AHEAD,
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
    const syncedAt = ctx.now();
    let setAsideNow = 0;
    db.transaction(() => {
      const unstorable = upsertTests(db, { storeId, tests: result.items, runId, syncedAt });
      // A pull never overwrites an unsent edit: the server's record becomes its base, the edit goes on top.
      const unstorableIds = new Set(unstorable.map((u) => u.id));
      const stored = result.items.filter((test) => !unstorableIds.has(test.id));
      rebasePulledTests(db, storeId, stored, syncedAt);
      // Records the cache could not take are set aside like invalid ones (their raw JSON cannot be kept).
      const refused = [
        ...result.rejected,
        ...unstorable.map((u) => ({ id: u.id, error: u.error, raw: null, index: null })),
      ];
      setAsideNow = refused.length;
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
    })();
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
