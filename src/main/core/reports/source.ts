// Reads the tests in a report's scope from the cache in small keyset batches: memory stays flat, and
// the connection is never held by an open cursor while the writer waits (other calls keep working).
import type { TestFilter } from '#shared/contract/index';
import { problem } from '#shared/problem';
import type { Db } from '../db/types';
import { filterWhere, whereSql } from '../db/cache/test-list';
import { statement } from '../db/statements';
import { unpackJson } from '../db/values';
import type { ReportContext } from './types';

export type ScopedTestRow = {
  seq: number;
  storeId: string;
  storeName: string;
  testJson: string;
  resultsJson: string | null;
  /** Splitbook's call on the goal as kept on the row (db/decisions.ts), never made again per export. */
  decision: string | null;
  decisionReason: string | null;
  daysToDecision: number | null;
  goalLift: number | null;
  goalPWin: number | null;
  /** The kept call whole (its guardrails, figures at the call), as JSON. */
  decisionJson: string | null;
};

/**
 * Tests per batch: a test's packed results are about 7 KB for a month of days and 70 KB for a year, so
 * a batch holds a few megabytes at most; fewer, larger batches cost SQLite less per row.
 */
export const BATCH_WITH_RESULTS = 64;
export const BATCH_TESTS_ONLY = 500;

function scopeWhere(filter: TestFilter, testId: string | null) {
  const where = filterWhere(filter, true);
  if (testId !== null) {
    where.conditions.push('t.id = ?');
    where.params.push(testId);
  }
  return where;
}

/** How many tests the scope holds (the progress total). */
export function countTests(db: Db, filter: TestFilter, testId: string | null): number {
  const where = scopeWhere(filter, testId);
  const row = statement<{ n: number }>(
    db,
    `SELECT count(*) AS n FROM tests t ${whereSql(where)}`,
  ).get(...where.params);
  return row?.n ?? 0;
}

/**
 * Every test in scope in the cache's order, read `batch` rows at a time by keyset on `t.seq`: `columns`
 * name what to read of `t` (tests) and of whatever `joins` adds; each row has `seq` and `storeName`
 * besides. Every report that reads tests goes through here, so each reads the same scope.
 */
export function* scopedRows<Row extends { seq: number }>(
  ctx: ReportContext,
  read: { columns: string; joins: string; batch: number },
): Generator<Row & { storeName: string }> {
  const { db, scope } = ctx;
  const where = scopeWhere(scope.filter, scope.testId);
  ctx.progress.total = countTests(db, scope.filter, scope.testId);
  const conditions = [...where.conditions, 't.seq > ?'];
  const sql = `
    SELECT t.seq, coalesce(s.name, '') AS storeName, ${read.columns}
    FROM tests t
    LEFT JOIN stores s ON s.id = t.store_id
    ${read.joins}
    WHERE ${conditions.join(' AND ')}
    ORDER BY t.seq LIMIT ?`;
  let after = 0;
  for (;;) {
    const rows = statement<Row & { storeName: string }>(db, sql).all(
      ...where.params,
      after,
      read.batch,
    );
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
  type PackedRow = Omit<ScopedTestRow, 'resultsJson'> & { resultsPacked: Uint8Array | null };
  const rows = scopedRows<PackedRow>(ctx, {
    columns: `t.store_id AS storeId, tr.raw_json AS testJson,
      t.decision, t.decision_reason AS decisionReason, t.days_to_decision AS daysToDecision,
      t.goal_lift AS goalLift, t.goal_p_win AS goalPWin, d.decision_json AS decisionJson,
      ${withResults ? 'rr.raw_packed' : 'NULL'} AS resultsPacked`,
    joins: `JOIN tests_raw tr ON tr.seq = t.seq
      LEFT JOIN tests_decision d ON d.seq = t.seq
      ${withResults ? 'LEFT JOIN results_raw rr ON rr.store_id = t.store_id AND rr.test_id = t.id' : ''}`,
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
  const stores = statement<{ id: string; name: string; lastSyncedAt: string | null }>(
    db,
    `SELECT id, name, last_synced_at AS lastSyncedAt FROM stores WHERE @storeId IS NULL OR id = @storeId`,
  ).all({ storeId });
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
