// Reads the tests in a report's scope from the cache in small keyset batches: memory stays flat, and
// the connection is never held by an open cursor while the writer waits (other calls keep working).
import type { TestFilter } from '#shared/contract/index';
import { problem } from '#shared/problem';
import type { Db } from '../db/types';
import {
  countScopedTests,
  scopedBatches,
  type ScopedPackedRow,
  type ScopedReads,
} from '../db/cache/report-rows';
import { storesSyncedAt } from '../db/cache/stores';
import { unpackJson } from '../db/values';
import type { ReportContext } from './types';

/** A test in scope with its raw JSON, its kept call and (when asked) its raw results. */
export type ScopedTestRow = Omit<ScopedPackedRow, 'resultsPacked'> & { resultsJson: string | null };

/**
 * Tests per batch: a test's packed results are about 7 KB for a month of days and 70 KB for a year, so
 * a batch holds a few megabytes at most; fewer, larger batches cost SQLite less per row.
 */
export const BATCH_WITH_RESULTS = 64;
export const BATCH_TESTS_ONLY = 500;

/** How many tests the scope holds (the progress total). */
export function countTests(db: Db, filter: TestFilter, testId: string | null): number {
  return countScopedTests(db, { filter, testId });
}

/**
 * Every test in scope in the cache's order, read `batch` rows at a time by keyset on `t.seq`, in the
 * shape `shape` names (db/cache/report-rows.ts). Every report that reads tests goes through here, so
 * each reads the same scope.
 */
export function* scopedRows<K extends keyof ScopedReads>(
  ctx: ReportContext,
  read: { shape: K; batch: number },
): Generator<ScopedReads[K]> {
  const { db, scope } = ctx;
  const next = scopedBatches(db, scope, read.shape);
  ctx.progress.total = countTests(db, scope.filter, scope.testId);
  let after = 0;
  for (;;) {
    const rows = next(after, read.batch);
    for (const row of rows) {
      ctx.progress.done += 1;
      yield row;
    }
    const last = rows.at(-1);
    if (!last || rows.length < read.batch) return;
    after = last.seq;
  }
}

/** Every test in scope in the cache's order, with its raw JSON and (when asked) its raw results. */
export function* scopedTests(ctx: ReportContext, withResults: boolean): Generator<ScopedTestRow> {
  const rows = scopedRows(ctx, {
    shape: withResults ? 'testsWithResults' : 'tests',
    batch: withResults ? BATCH_WITH_RESULTS : BATCH_TESTS_ONLY,
  });
  for (const { resultsPacked, ...row } of rows) {
    // Unpacked one test at a time, as it is written out: memory holds one test's results at most.
    yield { ...row, resultsJson: resultsPacked ? unpackJson(resultsPacked) : null };
  }
}

/**
 * Refuses a scope nothing can be exported from: an unknown store, or stores never synced (an
 * empty file would look like a store without tests).
 */
export function checkScope(db: Db, storeId: string | null): void {
  const stores = storesSyncedAt(db, storeId);
  if (storeId !== null && stores.length === 0) {
    throw problem('notFound', 404, 'Unknown store', `There is no store with id ${storeId}.`);
  }
  if (stores.length === 0) {
    throw problem('conflict', 409, 'No stores', 'Add a store and sync it before exporting.');
  }
  if (stores.every((store) => store.lastSyncedAt === null)) {
    const which =
      storeId !== null ? `The store "${stores[0]?.name ?? storeId}" has` : 'The stores have';
    throw problem(
      'conflict',
      409,
      'Never synced',
      `${which} never been synced, so the cache holds nothing to export. Sync first.`,
    );
  }
}
