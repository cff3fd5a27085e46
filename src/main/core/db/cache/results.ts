// Writes of results as rows: one test's results replaced whole (results, results_raw), with the figures
// the list sorts on, the data-quality alerts and the call copied to the test, the facts and rate fits
// beside them; and the reads a sync makes of what is cached. What is written is made by
// core/decisions/results.ts.
import type { TestResults } from '#shared/api/index';
import { storeCall, writeRateFits, type StoredCall } from './decisions';
import { writeFacts, type FactsRow } from './decision-facts';
import { clearSetAside } from './set-aside';
import { read, write } from '../sql';
import type { Db } from '../types';

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

type TestKey = { storeId: string; testId: string };

const DELETE_RESULTS = write<TestKey>(
  `DELETE FROM results WHERE store_id = @storeId AND test_id = @testId`,
);
const INSERT_RESULTS = write<
  TestKey &
    ResultsFigures & {
      fetchedAt: string;
      testUpdatedAt: string;
      testStatus: string;
      reviewParts: string;
    }
>(`
  INSERT INTO results (
    store_id, test_id, status, total_visitors, control_split, variant_split, winner, lift, change_revenue,
    control_probability_win, variant_probability_win, tier, leading_variant, probability_to_win,
    not_yet_stable, tier_reached_at, fetched_at, test_updated_at, test_status, review_parts
  ) VALUES (
    @storeId, @testId, @status, @totalVisitors, @controlSplit, @variantSplit, @winner, @lift, @changeRevenue,
    @controlProbabilityWin, @variantProbabilityWin, @tier, @leadingVariant, @probabilityToWin,
    @notYetStable, @tierReachedAt, @fetchedAt, @testUpdatedAt, @testStatus, @reviewParts
  )`);
const INSERT_RESULTS_RAW = write<TestKey & { packed: Uint8Array }>(
  `INSERT INTO results_raw (store_id, test_id, raw_packed) VALUES (@storeId, @testId, @packed)`,
);
/** The results' figures the list sorts and filters by, copied to the test's row with its alerts (one row write). */
const COPY_RESULTS_TO_TEST = write<
  TestKey & {
    probabilityToWin: number | null;
    lift: number | null;
    visitors: number | null;
    tier: string | null;
    leader: string | null;
    alerts: string | null;
    alertCount: number | null;
  }
>(`
  UPDATE tests SET probability_to_win = @probabilityToWin, lift = @lift, visitors = @visitors, tier = @tier,
    leader = @leader, alerts = @alerts, alert_count = @alertCount
  WHERE store_id = @storeId AND id = @testId`);

const SELECT_TEST_RAW = read<{ seq: number; rawJson: string }, TestKey>(`
  SELECT t.seq, raw.raw_json AS rawJson FROM tests t JOIN tests_raw raw ON raw.seq = t.seq
  WHERE t.store_id = @storeId AND t.id = @testId`);
const SET_ALERTS = write<TestKey & { alerts: string; count: number }>(
  `UPDATE tests SET alerts = @alerts, alert_count = @count WHERE store_id = @storeId AND id = @testId`,
);

/** The alerts as stored on the test row: a JSON array of codes (one per alert, repeats kept) and their count. */
export type StoredAlerts = { alerts: string; count: number };

/** A cached test's row: its seq and raw JSON, or null when the cache has none. */
export function readTestRaw(
  db: Db,
  storeId: string,
  testId: string,
): { seq: number; json: string } | null {
  const row = SELECT_TEST_RAW.get(db, { storeId, testId });
  return row ? { seq: row.seq, json: row.rawJson } : null;
}

/** The results' figures as the results row keeps them; the list's are copied from them to the test's row. */
export type ResultsFigures = {
  status: TestResults['status'];
  totalVisitors: TestResults['totalVisitors'];
  controlSplit: TestResults['controlSplit'];
  variantSplit: TestResults['variantSplit'];
  winner: TestResults['winner'];
  lift: TestResults['lift'];
  changeRevenue: TestResults['changeRevenue'];
  controlProbabilityWin: TestResults['controlProbabilityWin'];
  variantProbabilityWin: TestResults['variantProbabilityWin'];
  tier: TestResults['lifecycle']['tier'];
  leadingVariant: TestResults['lifecycle']['leadingVariant'];
  probabilityToWin: TestResults['lifecycle']['probabilityToWin'];
  notYetStable: 0 | 1 | null;
  tierReachedAt: TestResults['lifecycle']['tierReachedAt'];
};

/** Everything a results write stores, as rows (made by core/decisions/results.ts). */
export type ResultsRows = {
  figures: ResultsFigures;
  /** The record as results_raw keeps it (packJson). */
  packed: Uint8Array;
  reviewParts: string;
  rateFits: string;
  /** Null when the test's record cannot be read (the list then shows none rather than guess). */
  alerts: StoredAlerts | null;
  /** The call written on the test's row; null when the cache has no row for the test. */
  call: { seq: number; call: StoredCall | null; key: string; at: string } | null;
  /** Null when the test's record cannot be read: its facts are left as they were. */
  facts: FactsRow | null;
};

/** How a prepared write is placed: the results' identity and basis, without the record (it is in `ready`). */
export type PreparedWrite = Omit<ResultsWrite, 'results'>;

/** Writes a test's results and what is made of them (deleting cascades to the old raw JSON: nothing of them lingers). */
export function writeResultsRows(db: Db, write: PreparedWrite, ready: ResultsRows): void {
  const { storeId, testId } = write;
  const f = ready.figures;
  DELETE_RESULTS.run(db, { storeId, testId });
  INSERT_RESULTS.run(db, {
    storeId,
    testId,
    ...f,
    fetchedAt: write.fetchedAt,
    testUpdatedAt: write.testUpdatedAt,
    testStatus: write.testStatus,
    reviewParts: ready.reviewParts,
  });
  INSERT_RESULTS_RAW.run(db, { storeId, testId, packed: ready.packed });
  COPY_RESULTS_TO_TEST.run(db, {
    storeId,
    testId,
    probabilityToWin: f.variantProbabilityWin,
    lift: f.lift,
    visitors: f.totalVisitors,
    tier: f.tier,
    leader: f.leadingVariant,
    alerts: ready.alerts?.alerts ?? null,
    alertCount: ready.alerts?.count ?? null,
  });
  if (ready.call) storeCall(db, ready.call.seq, ready.call.call, ready.call.key, ready.call.at);
  if (ready.facts) writeFacts(db, storeId, testId, ready.facts);
  writeRateFits(db, storeId, testId, ready.rateFits);
  clearSetAside(db, storeId, 'results', testId);
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

/** A ResultsCandidate's columns, of tests `t` LEFT JOINed to their results `r`. */
const CANDIDATE_COLUMNS = `t.id, t.status, t.updated_at AS updatedAt, r.fetched_at AS fetchedAt,
         r.test_updated_at AS fetchedForUpdatedAt, r.test_status AS fetchedForStatus`;

const RESULTS_CANDIDATES = read<ResultsCandidate, { storeId: string }>(`
  SELECT ${CANDIDATE_COLUMNS}
  FROM tests t LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  WHERE t.store_id = @storeId AND t.removed = 0
  ORDER BY t.updated_at DESC, t.id`);

/** Every test of the store not marked removed, most recently updated first, with its cached results' basis. */
export function resultsCandidates(db: Db, storeId: string): ResultsCandidate[] {
  return RESULTS_CANDIDATES.all(db, { storeId });
}

// CROSS JOIN keeps the listed ids outside: without statistics the planner walked the store's whole
// tests_by_removed index (or the results' primary key) and json_each inside it, so each part of a listing
// read every cached row of its store, and a listing of 200,000 tests slowed page after page.
const RESULTS_CANDIDATES_OF = read<ResultsCandidate, { ids: string; storeId: string }>(`
  SELECT ${CANDIDATE_COLUMNS}
  FROM json_each(@ids) ids
  CROSS JOIN tests t ON t.store_id = @storeId AND t.id = ids.value
  LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  WHERE t.removed = 0
  ORDER BY ids.key`);

/** resultsCandidates of the given tests only (those of a part of the listing just written), in their order. */
export function resultsCandidatesOf(
  db: Db,
  storeId: string,
  testIds: readonly string[],
): ResultsCandidate[] {
  if (testIds.length === 0) return [];
  return RESULTS_CANDIDATES_OF.all(db, { ids: JSON.stringify(testIds), storeId });
}

/** The cached results' basis of a ResultsCandidate: what they were fetched for, and when. */
export type CachedResultsBasis = Pick<
  ResultsCandidate,
  'fetchedAt' | 'fetchedForUpdatedAt' | 'fetchedForStatus'
>;

const CACHED_RESULTS_OF = read<
  CachedResultsBasis & { id: string },
  { ids: string; storeId: string }
>(`
  SELECT ids.value AS id, r.fetched_at AS fetchedAt, r.test_updated_at AS fetchedForUpdatedAt,
         r.test_status AS fetchedForStatus
  FROM json_each(@ids) ids
  CROSS JOIN results r ON r.store_id = @storeId AND r.test_id = ids.value`);

/** The two look-ups a sync makes for each part of a listing, by name (their plans are tested). */
export const LISTING_LOOKUPS = {
  resultsCandidatesOf: RESULTS_CANDIDATES_OF,
  cachedResultsOf: CACHED_RESULTS_OF,
};

/**
 * The cached results' basis of the given tests, by id: of tests listed but not yet written, whose
 * rows may not exist (a test without cached results is absent).
 */
export function cachedResultsOf(
  db: Db,
  storeId: string,
  testIds: readonly string[],
): Map<string, CachedResultsBasis> {
  const rows =
    testIds.length === 0
      ? []
      : CACHED_RESULTS_OF.all(db, { ids: JSON.stringify(testIds), storeId });
  return new Map(rows.map(({ id, ...basis }) => [id, basis]));
}

const ROWS_WITHOUT_ALERTS = read<RowWithoutAlerts, { limit: number }>(`
  SELECT t.store_id AS storeId, t.id AS testId, traw.raw_json AS testJson, rraw.raw_packed AS resultsPacked,
         r.fetched_at AS fetchedAt
  FROM results r
  JOIN tests t ON t.store_id = r.store_id AND t.id = r.test_id
  JOIN tests_raw traw ON traw.seq = t.seq
  JOIN results_raw rraw ON rraw.store_id = r.store_id AND rraw.test_id = r.test_id
  WHERE t.alerts IS NULL
  LIMIT @limit`);

/** A cached result whose test has no alerts yet (cached before alerts were stored, migration 7). */
export type RowWithoutAlerts = {
  storeId: string;
  testId: string;
  testJson: string;
  resultsPacked: Uint8Array;
  fetchedAt: string;
};

/** Up to `limit` cached results whose test has no alerts yet. */
export function rowsWithoutAlerts(db: Db, limit: number): RowWithoutAlerts[] {
  return ROWS_WITHOUT_ALERTS.all(db, { limit });
}

/** Writes a test's alerts. */
export function writeAlerts(db: Db, storeId: string, testId: string, alerts: StoredAlerts): void {
  SET_ALERTS.run(db, { storeId, testId, ...alerts });
}

/** A listed test with results: its status and its last day (its end, else when its results were fetched). */
export type TrafficCandidate = { id: string; status: string; lastAt: string };
const TRAFFIC_CANDIDATES = read<TrafficCandidate, { storeId: string }>(
  `SELECT t.id, t.status, coalesce(t.end_at, r.fetched_at) AS lastAt
   FROM tests t JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
   WHERE t.store_id = @storeId AND t.removed = 0`,
);
/** The store's tests whose daily traffic the planner may read. */
export const trafficCandidates = (db: Db, storeId: string): TrafficCandidate[] =>
  TRAFFIC_CANDIDATES.all(db, { storeId });
