// A results write made from the record: the figures the list sorts on, the data-quality alerts, the
// call on its goal and the facts it is made from, and the rate fits (prepareResults: no I/O, the same
// on any thread), then written as rows by db/cache/results.ts.
import { Test, TestResults } from '#shared/api/index';
import { decisionFacts, type DecisionData } from '#shared/domain/decisions/index';
import { testAlerts } from '#shared/domain/statistics/index';
import type { FactsRow } from '../db/cache/decision-facts';
import {
  readTestRaw,
  rowsWithoutAlerts,
  writeAlerts,
  writeResultsRows,
  type PreparedWrite,
  type ResultsFigures,
  type ResultsWrite,
  type StoredAlerts,
} from '../db/cache/results';
import type { Db } from '../db/types';
import { readTestPlan, type TestPlan } from '../db/user/decisions';
import { packJson, toFlag, unpackJson } from '../db/values';
import { decisionInput, decisionKey, storeBasis, type DecisionBasis } from './basis';
import { callFor, storedCall } from './calls';
import { factsRow } from './facts';
import { rateFitsOf } from './rate-fits';

export type { PreparedWrite, ResultsWrite, StoredAlerts };

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
  return {
    test: readTestRaw(db, storeId, testId),
    basis: storeBasis(db, storeId),
    plan: readTestPlan(db, storeId, testId),
    at,
  };
}

/**
 * Everything a results write stores but the call, made from the record and its context alone
 * (prepareResults): plain data, so the sync makes it on its decoder thread (sync/decode) and only writes
 * it on its own. The call is made where it is written (writePrepared), from `data`, with the settings
 * and plan in effect then: once, at one point.
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
  /** What the test's call is made from (decisionFacts); null when it can have none or the cache has no row for the test. */
  data: DecisionData | null;
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
  const data = test === null ? null : decisionFacts(test, results);
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
    data,
    facts: test && context.test ? factsRow(context.test.json, data) : null,
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
    writePrepared(db, write, prepareResults(write.results, context), context);
  }).immediate();
}

/**
 * Writes results prepared elsewhere (the sync's decoder thread) from a context read when the answer
 * came. Should the test's record have changed since, the derived parts are made again here from the
 * packed record; the call is made here in any case, with the settings and plan in effect now, so what
 * is written is always what upsertResults would write.
 */
export function writePreparedResults(db: Db, write: PreparedWrite, ready: PreparedResults): void {
  const { storeId, testId } = write;
  db.transaction(() => {
    const now = resultsContext(db, storeId, testId, ready.context.at);
    const then = ready.context;
    const same = now.test?.seq === then.test?.seq && now.test?.json === then.test?.json;
    const current = same
      ? ready
      : prepared(TestResults.parse(JSON.parse(unpackJson(ready.packed))), ready.packed, now);
    writePrepared(db, write, current, now);
  }).immediate();
}

/** Writes prepared results, and the test's call made from their facts with `context`'s settings and plan. */
function writePrepared(
  db: Db,
  write: PreparedWrite,
  ready: PreparedResults,
  context: ResultsContext,
): void {
  const decision =
    ready.data === null ? null : callFor(ready.data, decisionInput(context.basis, context.plan));
  writeResultsRows(db, write, {
    figures: ready.figures,
    packed: ready.packed,
    reviewParts: ready.reviewParts,
    rateFits: ready.rateFits,
    alerts: ready.alerts,
    call: context.test
      ? {
          seq: context.test.seq,
          call: decision === null ? null : storedCall(decision),
          key: decisionKey(context.basis, context.plan),
          at: context.at,
        }
      : null,
    facts: ready.facts,
  });
}

/** Rows the backfill fills per call: a cache of 10,000 tests with results takes ~1 s at most. */
export const ALERTS_BACKFILL_LIMIT = 20_000;

/**
 * Fills the alerts of tests whose results were cached before alerts were stored (migration 7), in one
 * transaction, at most `limit` rows: run once at core start, it costs nothing once every row is filled.
 * A row whose records cannot be read gets an empty list, so it is not read again at every start.
 */
export function backfillAlerts(db: Db, limit = ALERTS_BACKFILL_LIMIT): number {
  return db
    .transaction(() => {
      const rows = rowsWithoutAlerts(db, limit);
      for (const row of rows) {
        let stored: StoredAlerts | null = null;
        try {
          const results = TestResults.safeParse(JSON.parse(unpackJson(row.resultsPacked)));
          if (results.success) stored = alertsOf(row.testJson, results.data, row.fetchedAt);
        } catch {
          stored = null;
        }
        writeAlerts(db, row.storeId, row.testId, stored ?? { alerts: '[]', count: 0 });
      }
      return rows.length;
    })
    .immediate();
}
