// Writes of results: one test's results replaced whole, with the figures the list sorts on, the
// data-quality alerts and the decision on its goal copied to the test, and the rate readings they fit.
import { Test, TestResults } from '#shared/api/index';
import type { Decision } from '#shared/domain/decisions/index';
import { testAlerts } from '#shared/domain/statistics/index';
import { factsRow, writeFacts, type FactsRow } from './decision-facts';
import {
  decisionKey,
  makeDecision,
  rateFitsOf,
  readTestPlan,
  storeBasis,
  storeDecision,
  writeRateFits,
  type DecisionBasis,
  type TestPlan,
} from './decisions';
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

// ---------- a results write: prepared from the record, then written ----------

/**
 * What a results write needs besides the record: the test's own row (seq and raw JSON; null when the
 * cache has none), the basis and plan of its call, and when the results were fetched (the clock of
 * the alerts' missing-days rule and of the call). Read from the cache when the answer came.
 */
export type ResultsContext = {
  test: { seq: number; json: string } | null;
  basis: DecisionBasis;
  plan: TestPlan | null;
  at: string;
};

export function resultsContext(
  db: Db,
  storeId: string,
  testId: string,
  at: string,
): ResultsContext {
  const row = statement<{ seq: number; rawJson: string }>(db, SELECT_TEST_RAW).get(storeId, testId);
  return {
    test: row ? { seq: row.seq, json: row.rawJson } : null,
    basis: storeBasis(db, storeId),
    plan: readTestPlan(db, storeId, testId),
    at,
  };
}

/** The results' figures as the results row keeps them; the list's are copied from them to the test's row. */
type ResultsFigures = {
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

/**
 * Everything a results write stores, made from the record and its context alone (prepareResults): plain
 * data, so the sync makes it on its decoder thread (sync/decode) and only writes it on its own.
 */
export type PreparedResults = {
  context: ResultsContext;
  figures: ResultsFigures;
  /** The record as results_raw keeps it (packJson). */
  packed: Uint8Array;
  reviewParts: string;
  rateFits: string;
  /** Null when the test's record cannot be read (the list then shows none rather than guess). */
  alerts: StoredAlerts | null;
  /** The call and its key; null when the cache has no row for the test. */
  decision: { decision: Decision | null; key: string } | null;
  /** Null when the test's record cannot be read: its facts are left as they were. */
  facts: FactsRow | null;
};

/** Prepares the write of `results` (already valid) in `context`: no I/O, the same on any thread. */
export function prepareResults(results: TestResults, context: ResultsContext): PreparedResults {
  return prepared(results, packJson(results), context);
}

function prepared(
  results: TestResults,
  packed: Uint8Array,
  context: ResultsContext,
): PreparedResults {
  const { lifecycle } = results;
  const test = context.test ? parseTest(context.test.json) : null;
  const made = context.test ? makeDecision(test, results, context.basis, context.plan) : null;
  return {
    context,
    figures: {
      status: results.status,
      totalVisitors: results.totalVisitors,
      controlSplit: results.controlSplit,
      variantSplit: results.variantSplit,
      winner: results.winner,
      lift: results.lift,
      changeRevenue: results.changeRevenue,
      controlProbabilityWin: results.controlProbabilityWin,
      variantProbabilityWin: results.variantProbabilityWin,
      tier: lifecycle.tier,
      leadingVariant: lifecycle.leadingVariant,
      probabilityToWin: lifecycle.probabilityToWin,
      notYetStable: toFlag(lifecycle.notYetStable),
      tierReachedAt: lifecycle.tierReachedAt,
    },
    packed,
    reviewParts: reviewParts(results),
    rateFits: JSON.stringify(rateFitsOf(results)),
    alerts: test ? alertsOfTest(test, results, context.at) : null,
    decision: made && { decision: made.decision, key: made.key },
    facts: test && context.test ? factsRow(context.test.json, made?.data ?? null) : null,
  };
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
  const { storeId, testId } = write;
  db.transaction(() => {
    const context = resultsContext(db, storeId, testId, write.fetchedAt);
    writePrepared(db, write, prepareResults(write.results, context));
  }).immediate();
}

/** How a prepared write is placed: the results' identity and basis, without the record (it is in `ready`). */
export type PreparedWrite = Omit<ResultsWrite, 'results'>;

/**
 * Writes results prepared elsewhere (the sync's decoder thread) from a context read when the answer
 * came. Should the test's record, its plan or the settings have changed since, the derived parts are
 * made again here from the packed record, so what is written is always what upsertResults would write.
 */
export function writePreparedResults(db: Db, write: PreparedWrite, ready: PreparedResults): void {
  const { storeId, testId } = write;
  db.transaction(() => {
    const now = resultsContext(db, storeId, testId, ready.context.at);
    const then = ready.context;
    const same =
      now.test?.seq === then.test?.seq &&
      now.test?.json === then.test?.json &&
      (now.test === null || decisionKey(now.basis, now.plan) === ready.decision?.key);
    const current = same
      ? ready
      : prepared(TestResults.parse(JSON.parse(unpackJson(ready.packed))), ready.packed, now);
    writePrepared(db, write, current);
  }).immediate();
}

function writePrepared(db: Db, write: PreparedWrite, ready: PreparedResults): void {
  const { storeId, testId } = write;
  const f = ready.figures;
  statement(db, DELETE_RESULTS).run(storeId, testId);
  statement(db, INSERT_RESULTS).run(
    storeId,
    testId,
    f.status,
    f.totalVisitors,
    f.controlSplit,
    f.variantSplit,
    f.winner,
    f.lift,
    f.changeRevenue,
    f.controlProbabilityWin,
    f.variantProbabilityWin,
    f.tier,
    f.leadingVariant,
    f.probabilityToWin,
    f.notYetStable,
    f.tierReachedAt,
    write.fetchedAt,
    write.testUpdatedAt,
    write.testStatus,
    ready.reviewParts,
  );
  statement(db, INSERT_RESULTS_RAW).run(storeId, testId, ready.packed);
  statement(db, COPY_RESULTS_TO_TEST).run(
    f.variantProbabilityWin,
    f.lift,
    f.totalVisitors,
    f.tier,
    f.leadingVariant,
    ready.alerts?.alerts ?? null,
    ready.alerts?.count ?? null,
    storeId,
    testId,
  );
  const test = ready.context.test;
  if (test && ready.decision)
    storeDecision(db, test.seq, ready.decision.decision, ready.decision.key, ready.context.at);
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

const RESULTS_CANDIDATES = `
  SELECT ${CANDIDATE_COLUMNS}
  FROM tests t LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  WHERE t.store_id = ? AND t.removed = 0
  ORDER BY t.updated_at DESC, t.id`;

/** Every test of the store not marked removed, most recently updated first, with its cached results' basis. */
export function resultsCandidates(db: Db, storeId: string): ResultsCandidate[] {
  return statement<ResultsCandidate>(db, RESULTS_CANDIDATES).all(storeId);
}

// CROSS JOIN keeps the listed ids outside: without statistics the planner walked the store's whole
// tests_by_removed index (or the results' primary key) and json_each inside it, so each part of a listing
// read every cached row of its store, and a listing of 200,000 tests slowed page after page.
const RESULTS_CANDIDATES_OF = `
  SELECT ${CANDIDATE_COLUMNS}
  FROM json_each(?) ids
  CROSS JOIN tests t ON t.store_id = ? AND t.id = ids.value
  LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  WHERE t.removed = 0
  ORDER BY ids.key`;

/** resultsCandidates of the given tests only (those of a part of the listing just written), in their order. */
export function resultsCandidatesOf(
  db: Db,
  storeId: string,
  testIds: readonly string[],
): ResultsCandidate[] {
  if (testIds.length === 0) return [];
  return statement<ResultsCandidate>(db, RESULTS_CANDIDATES_OF).all(
    JSON.stringify(testIds),
    storeId,
  );
}

/** The cached results' basis of a ResultsCandidate: what they were fetched for, and when. */
export type CachedResultsBasis = Pick<
  ResultsCandidate,
  'fetchedAt' | 'fetchedForUpdatedAt' | 'fetchedForStatus'
>;

const CACHED_RESULTS_OF = `
  SELECT ids.value AS id, r.fetched_at AS fetchedAt, r.test_updated_at AS fetchedForUpdatedAt,
         r.test_status AS fetchedForStatus
  FROM json_each(?) ids
  CROSS JOIN results r ON r.store_id = ? AND r.test_id = ids.value`;

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
      : statement<CachedResultsBasis & { id: string }>(db, CACHED_RESULTS_OF).all(
          JSON.stringify(testIds),
          storeId,
        );
  return new Map(rows.map(({ id, ...basis }) => [id, basis]));
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
  return db
    .transaction(() => {
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
    })
    .immediate();
}
