// Writes of results: one test's results replaced whole, with the figures the list sorts on, the
// data-quality alerts and the decision on its goal copied to the test, and the rate readings they fit.
import { Test, TestResults } from '#shared/api/index';
import { testAlerts } from '#shared/domain/statistics/index';
import { writeDecision, writeRateFits } from './decisions';
import { clearSetAside } from './set-aside';
import { statement } from '../statements';
import type { Db } from '../types';
import { packJson, toFlag, unpackJson } from '../values';

/** One test's results as a sync writes them. */
export interface ResultsWrite {
  storeId: string;
  testId: string;
  results: TestResults;
  fetchedAt: string;
  /** The test's `updatedAt` and `status` when the results were fetched, to tell later whether they can have changed. */
  testUpdatedAt: string;
  testStatus: string;
}

const DELETE_RESULTS = `DELETE FROM results WHERE store_id = ? AND test_id = ?`;
const INSERT_RESULTS = `
  INSERT INTO results (
    store_id, test_id, status, total_visitors, control_split, variant_split, winner, lift, change_revenue,
    control_probability_win, variant_probability_win, tier, leading_variant, probability_to_win,
    not_yet_stable, tier_reached_at, fetched_at, test_updated_at, test_status, review_parts
  ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_RESULTS_RAW = `INSERT INTO results_raw (store_id, test_id, raw_packed) VALUES (?, ?, ?)`;
/** The results' figures the list sorts and filters by, copied to the test's row with its alerts (one row write). */
const COPY_RESULTS_TO_TEST = `
  UPDATE tests SET probability_to_win = ?, lift = ?, visitors = ?, tier = ?, leader = ?, alerts = ?, alert_count = ?
  WHERE store_id = ? AND id = ?`;

const SELECT_TEST_RAW = `
  SELECT t.seq, raw.raw_json AS rawJson FROM tests t JOIN tests_raw raw ON raw.seq = t.seq
  WHERE t.store_id = ? AND t.id = ?`;
const SET_ALERTS = `UPDATE tests SET alerts = ?, alert_count = ? WHERE store_id = ? AND id = ?`;

/** The alerts as stored on the test row: a JSON array of codes (one per alert, repeats kept) and their count. */
export type StoredAlerts = { alerts: string; count: number };

/**
 * The data-quality alerts (shared/domain/statistics) of results for a cached test, as the row stores
 * them, or null when the test's own record cannot be read (then the list shows none rather than guess).
 * `at` is the clock of the missing-days rule: the time the results were fetched.
 */
export function alertsOf(
  testRawJson: string,
  results: TestResults,
  at: string,
): StoredAlerts | null {
  const test = parseTest(testRawJson);
  return test === null ? null : alertsOfTest(test, results, at);
}

function parseTest(rawJson: string): Test | null {
  let raw: unknown;
  try {
    raw = JSON.parse(rawJson);
  } catch {
    return null;
  }
  const test = Test.safeParse(raw);
  return test.success ? test.data : null;
}

function alertsOfTest(test: Test, results: TestResults, at: string): StoredAlerts {
  const now = Date.parse(at);
  const codes = testAlerts(test, results, {
    now: Number.isFinite(now) ? now : Date.now(),
  }).map((alert) => alert.code);
  return { alerts: JSON.stringify(codes), count: codes.length };
}

/**
 * What the test's row keeps of its results: the figures the list sorts by, the alerts, and the call on
 * its goal made with the settings in effect for it (db/decisions.ts). The test's record is read once for both.
 */
function writeDerived(
  db: Db,
  storeId: string,
  testId: string,
  results: TestResults,
  at: string,
): void {
  const row = statement<{ seq: number; rawJson: string }>(db, SELECT_TEST_RAW).get(storeId, testId);
  const test = row ? parseTest(row.rawJson) : null;
  const stored = test ? alertsOfTest(test, results, at) : null;
  statement(db, COPY_RESULTS_TO_TEST).run(
    results.variantProbabilityWin,
    results.lift,
    results.totalVisitors,
    results.lifecycle.tier,
    results.lifecycle.leadingVariant,
    stored?.alerts ?? null,
    stored?.count ?? null,
    storeId,
    testId,
  );
  if (row)
    writeDecision(db, { seq: row.seq, storeId, testId, testJson: row.rawJson }, test, results, at);
  writeRateFits(db, storeId, testId, results);
}

/**
 * What the review memory compares of results (review/snapshots.ts readParts), as JSON: the visitors of
 * each side and the tier of each goal, in the shape SQL once extracted from the raw record
 * (json_extract of '$.control.visitors', '$.variant.visitors', '$.lifecycleByGoal'), each goal's
 * lifecycle cut to its tier.
 */
function reviewParts(results: TestResults): string {
  const tiers: Record<string, { tier: string }> = {};
  for (const [goal, lifecycle] of Object.entries(results.lifecycleByGoal))
    tiers[goal] = { tier: lifecycle.tier };
  return JSON.stringify([results.control.visitors, results.variant.visitors, tiers]);
}

/** Replaces a test's cached results (deleting cascades to the old raw JSON: nothing of them lingers). */
export function upsertResults(db: Db, write: ResultsWrite): void {
  const { storeId, testId, results } = write;
  const { lifecycle } = results;
  db.transaction(() => {
    statement(db, DELETE_RESULTS).run(storeId, testId);
    statement(db, INSERT_RESULTS).run(
      storeId,
      testId,
      results.status,
      results.totalVisitors,
      results.controlSplit,
      results.variantSplit,
      results.winner,
      results.lift,
      results.changeRevenue,
      results.controlProbabilityWin,
      results.variantProbabilityWin,
      lifecycle.tier,
      lifecycle.leadingVariant,
      lifecycle.probabilityToWin,
      toFlag(lifecycle.notYetStable),
      lifecycle.tierReachedAt,
      write.fetchedAt,
      write.testUpdatedAt,
      write.testStatus,
      reviewParts(results),
    );
    statement(db, INSERT_RESULTS_RAW).run(storeId, testId, packJson(results));
    writeDerived(db, storeId, testId, results, write.fetchedAt);
    clearSetAside(db, storeId, 'results', testId);
  })();
}

/** A cached test with what its cached results were fetched for: the input of the sync's results policy. */
export type ResultsCandidate = {
  id: string;
  status: string;
  updatedAt: string;
  fetchedAt: string | null;
  fetchedForUpdatedAt: string | null;
  fetchedForStatus: string | null;
};

const RESULTS_CANDIDATES = `
  SELECT t.id, t.status, t.updated_at AS updatedAt, r.fetched_at AS fetchedAt,
         r.test_updated_at AS fetchedForUpdatedAt, r.test_status AS fetchedForStatus
  FROM tests t LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  WHERE t.store_id = ? AND t.removed = 0
  ORDER BY t.updated_at DESC, t.id`;

/** Every test of the store not marked removed, most recently updated first, with its cached results' basis. */
export function resultsCandidates(db: Db, storeId: string): ResultsCandidate[] {
  return statement<ResultsCandidate>(db, RESULTS_CANDIDATES).all(storeId);
}

/** Rows the backfill fills per call: a cache of 10,000 tests with results takes ~1 s at most. */
export const ALERTS_BACKFILL_LIMIT = 20_000;

const ROWS_WITHOUT_ALERTS = `
  SELECT t.store_id AS storeId, t.id AS testId, traw.raw_json AS testJson, rraw.raw_packed AS resultsPacked,
         r.fetched_at AS fetchedAt
  FROM results r
  JOIN tests t ON t.store_id = r.store_id AND t.id = r.test_id
  JOIN tests_raw traw ON traw.seq = t.seq
  JOIN results_raw rraw ON rraw.store_id = r.store_id AND rraw.test_id = r.test_id
  WHERE t.alerts IS NULL
  LIMIT ?`;

/**
 * Fills the alerts of tests whose results were cached before alerts were stored (migration 7), in one
 * transaction, at most `limit` rows: run once at core start, it costs nothing once every row is filled.
 * A row whose records cannot be read gets an empty list, so it is not read again at every start.
 */
export function backfillAlerts(db: Db, limit = ALERTS_BACKFILL_LIMIT): number {
  type Row = {
    storeId: string;
    testId: string;
    testJson: string;
    resultsPacked: Uint8Array;
    fetchedAt: string;
  };
  return db.transaction(() => {
    const rows = statement<Row>(db, ROWS_WITHOUT_ALERTS).all(limit);
    for (const row of rows) {
      let stored: StoredAlerts | null = null;
      try {
        const results = TestResults.safeParse(JSON.parse(unpackJson(row.resultsPacked)));
        if (results.success) stored = alertsOf(row.testJson, results.data, row.fetchedAt);
      } catch {
        stored = null;
      }
      statement(db, SET_ALERTS).run(
        stored?.alerts ?? '[]',
        stored?.count ?? 0,
        row.storeId,
        row.testId,
      );
    }
    return rows.length;
  })();
}
