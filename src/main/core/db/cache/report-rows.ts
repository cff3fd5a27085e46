// What the reports read of the cache's tests: the tests in a report's scope in keyset batches of the
// cache's order, each read one of a few fixed shapes (the SQL is built from the list's filter, so it is
// written here, beside the list's, and its rows are typed once per shape).
import type { TestFilter } from '#shared/contract/index';
import { read } from '../sql';
import { statement } from '../statements';
import type { Db } from '../types';
import { add, filterWhere, whereSql, type Where } from './test-filter';

/** A test with its raw JSON, its kept call and (when asked) its packed raw results. */
export type ScopedPackedRow = {
  seq: number;
  storeName: string;
  storeId: string;
  testJson: string;
  /** Splitbook's call on the goal as kept on the row (db/decisions.ts), never made again per export. */
  decision: string | null;
  decisionReason: string | null;
  daysToDecision: number | null;
  goalLift: number | null;
  goalPWin: number | null;
  /** The kept call whole (its guardrails, figures at the call), as JSON. */
  decisionJson: string | null;
  resultsPacked: Uint8Array | null;
};

/** A test as the tests report reads it from the cache: its typed columns and what was kept with its results. */
export type CachedTestRow = {
  seq: number;
  storeName: string;
  storeId: string;
  id: string;
  title: string;
  status: string;
  stage: string;
  goal: string;
  device: string;
  visitorOption: string;
  campaignId: string | null;
  campaignName: string | null;
  tagNames: string;
  priority: string | null;
  surfaceArea: string | null;
  impact: number | null;
  effort: number | null;
  implemented: 0 | 1 | null;
  createdAt: string;
  updatedAt: string;
  startAt: string | null;
  endAt: string | null;
  hypothesis: string | null;
  controlTraffic: number;
  variantTraffic: number | null;
  /** The data-quality alerts kept on the row (a JSON array of codes), made when the results were written. */
  alerts: string | null;
  decision: string | null;
  decisionReason: string | null;
  daysToDecision: number | null;
  goalLift: number | null;
  goalPWin: number | null;
  decisionJson: string | null;
  fetchedAt: string | null;
  fetchedForUpdatedAt: string | null;
  tier: string | null;
  leading: string | null;
  resultsPacked: Uint8Array | null;
};

/** A test with its packed raw results (null for a test without any): the daily report's read. */
export type PackedResultsRow = {
  seq: number;
  storeName: string;
  storeId: string;
  id: string;
  packed: Uint8Array | null;
};

/** The shapes a report reads, by name, and the row each gives. */
export type ScopedReads = {
  tests: ScopedPackedRow;
  testsWithResults: ScopedPackedRow;
  cachedTests: CachedTestRow;
  packedResults: PackedResultsRow;
};

const SCOPED_TESTS_COLUMNS = (
  withResults: boolean,
) => `t.store_id AS storeId, tr.raw_json AS testJson,
      t.decision, t.decision_reason AS decisionReason, t.days_to_decision AS daysToDecision,
      t.goal_lift AS goalLift, t.goal_p_win AS goalPWin, unpack_json(d.decision_packed) AS decisionJson,
      ${withResults ? 'rr.raw_packed' : 'NULL'} AS resultsPacked`;
const SCOPED_TESTS_JOINS = (withResults: boolean) => `JOIN tests_raw tr ON tr.seq = t.seq
      LEFT JOIN tests_decision d ON d.seq = t.seq
      ${withResults ? 'LEFT JOIN results_raw rr ON rr.store_id = t.store_id AND rr.test_id = t.id' : ''}`;

/** Each shape's columns (of `t`, tests, and what its joins add) and joins. */
const READS: Record<keyof ScopedReads, { columns: string; joins: string }> = {
  tests: { columns: SCOPED_TESTS_COLUMNS(false), joins: SCOPED_TESTS_JOINS(false) },
  testsWithResults: { columns: SCOPED_TESTS_COLUMNS(true), joins: SCOPED_TESTS_JOINS(true) },
  cachedTests: {
    columns: `
  t.store_id AS storeId, t.id, t.title, t.status, t.stage, t.goal, t.device,
  t.visitor_option AS visitorOption, t.campaign_id AS campaignId, t.campaign_name AS campaignName,
  t.tag_names AS tagNames, t.priority, t.surface_area AS surfaceArea, t.impact, t.effort, t.implemented,
  t.created_at AS createdAt, t.updated_at AS updatedAt, t.start_at AS startAt, t.end_at AS endAt,
  t.hypothesis,
  json_extract(tr.raw_json, '$.control.traffic') AS controlTraffic,
  json_extract(tr.raw_json, '$.variant.traffic') AS variantTraffic,
  t.alerts, t.decision, t.decision_reason AS decisionReason, t.days_to_decision AS daysToDecision,
  t.goal_lift AS goalLift, t.goal_p_win AS goalPWin, unpack_json(d.decision_packed) AS decisionJson,
  r.fetched_at AS fetchedAt, r.test_updated_at AS fetchedForUpdatedAt, r.tier,
  r.leading_variant AS leading, rr.raw_packed AS resultsPacked`,
    joins: `
  JOIN tests_raw tr ON tr.seq = t.seq
  LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  LEFT JOIN results_raw rr ON rr.store_id = t.store_id AND rr.test_id = t.id
  LEFT JOIN tests_decision d ON d.seq = t.seq`,
  },
  packedResults: {
    columns: 't.store_id AS storeId, t.id, rr.raw_packed AS packed',
    joins: 'LEFT JOIN results_raw rr ON rr.store_id = t.store_id AND rr.test_id = t.id',
  },
};

/** A report's scope: the list's filter, and one test of it or all (null). */
export type ReportScopeFilter = { filter: TestFilter; testId: string | null };

function scopeWhere({ filter, testId }: ReportScopeFilter): Where {
  const where = filterWhere(filter, true);
  if (testId !== null) {
    add(where, 't.id = @testId', { testId });
  }
  return where;
}

/** How many tests the scope holds (the progress total). */
export function countScopedTests(db: Db, scope: ReportScopeFilter): number {
  const where = scopeWhere(scope);
  const row = statement<{ n: number }>(
    db,
    `SELECT count(*) AS n FROM tests t ${whereSql(where)}`,
  ).get(where.params);
  return row?.n ?? 0;
}

/**
 * A reader of the scope's tests in the cache's order: each call gives the next `batch` rows after the
 * test `after` (a seq; 0 first), read in shape `shape`.
 */
export function scopedBatches<K extends keyof ScopedReads>(
  db: Db,
  scope: ReportScopeFilter,
  shape: K,
): (after: number, batch: number) => ScopedReads[K][] {
  const where = scopeWhere(scope);
  const { columns, joins } = READS[shape];
  const conditions = [...where.conditions, 't.seq > @after'];
  const sql = `
    SELECT t.seq, coalesce(s.name, '') AS storeName, ${columns}
    FROM tests t
    LEFT JOIN stores s ON s.id = t.store_id
    ${joins}
    WHERE ${conditions.join(' AND ')}
    ORDER BY t.seq LIMIT @batch`;
  return (after, batch) =>
    statement<ScopedReads[K]>(db, sql).all({ ...where.params, after, batch });
}

const TEST_RAW_JSON = read<{ json: string }, { seq: number }>(
  `SELECT raw_json AS json FROM tests_raw WHERE seq = @seq`,
);

/** A cached test's raw JSON as synced, by its row's seq. */
export function testRawJson(db: Db, seq: number): string | null {
  return TEST_RAW_JSON.get(db, { seq })?.json ?? null;
}

/** A test of a client report: its raw record and packed results, and when its figures are from. */
export type ClientReportRow = {
  seq: number;
  storeId: string;
  storeName: string;
  testId: string;
  syncedAt: string;
  rawJson: string;
  packed: Uint8Array | null;
  fetchedAt: string | null;
};

const CLIENT_REPORT_ROWS = read<
  ClientReportRow,
  { storeId: string | null; testId: string | null; since: string; until: string }
>(`
  SELECT t.seq, t.store_id AS storeId, s.name AS storeName, t.id AS testId, t.synced_at AS syncedAt,
         traw.raw_json AS rawJson, rraw.raw_packed AS packed, r.fetched_at AS fetchedAt
  FROM tests t
  JOIN stores s ON s.id = t.store_id
  JOIN tests_raw traw ON traw.seq = t.seq
  LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  LEFT JOIN results_raw rraw ON rraw.store_id = t.store_id AND rraw.test_id = t.id
  WHERE t.removed = 0
    AND (@storeId IS NULL OR t.store_id = @storeId)
    AND (@testId IS NULL OR t.id = @testId)
    AND (@testId IS NOT NULL OR (t.start_at IS NOT NULL AND substr(t.start_at, 1, 10) <= @until
         AND (t.end_at IS NULL OR substr(t.end_at, 1, 10) >= @since)))
  ORDER BY s.position, s.id, t.start_at, t.title COLLATE NOCASE, t.seq`);

/**
 * The tests of a client report: of one store (or every store: null), one test or those that ran or
 * ended in the period ('YYYY-MM-DD' both ends included), in the stores' order, then by start and title.
 */
export function clientReportRows(
  db: Db,
  scope: { storeId: string | null; testId: string | null; since: string; until: string },
): ClientReportRow[] {
  const { storeId, testId, since, until } = scope;
  return CLIENT_REPORT_ROWS.all(db, { storeId, testId, since, until });
}
