// Writes what a sync fetched into the cache: tests, results, campaigns, audiences, set-aside records.
// Each function is one transaction; the raw JSON of every record is kept beside its typed columns.
import type { SideMetric, SideStatistics, Test, TestResults } from '../../../shared/api';
import { SEGMENTS, SIDE_METRICS } from '../../../shared/api';
import { isEnded, isLaunched, isLive } from '../../../shared/domain/lifecycle';
import { statement } from './statements';
import type {
  AudienceItem,
  CampaignItem,
  Db,
  ResultsFreshness,
  SetAsideResource,
  TestItem,
  TestNeedingResults,
} from './types';

// The sync engine finds every write here; stores and sync state live in their own modules.
export * from './stores';
export * from './sync-state';

// ---------- tests ----------

/**
 * Upserts a page of tests, marks them seen by `runId` and not removed, and clears any
 * set-aside record they left. A test whose raw JSON is unchanged is only marked seen,
 * which is what keeps a re-sync where nothing changed cheap.
 */
export function upsertTests(
  db: Db,
  storeId: string,
  items: readonly TestItem[],
  runId: string,
  syncedAt: string,
): void {
  db.transaction(() => {
    for (const item of items) {
      const rawJson = toJson(item.raw, item.test);
      const cached = statement<{ seq: number; rawJson: string | null }>(db, FIND_CACHED_TEST).get(
        storeId,
        item.test.id,
      );
      if (cached && cached.rawJson === rawJson) {
        statement(db, MARK_TEST_SEEN).run(runId, syncedAt, cached.seq);
      } else {
        // A test new to the cache has no parts to clear yet.
        writeTest(db, storeId, item.test, rawJson, runId, syncedAt, cached !== undefined);
      }
      statement(db, DELETE_SET_ASIDE).run(storeId, 'test', item.test.id);
    }
  })();
}

const FIND_CACHED_TEST = `
  SELECT t.seq, r.raw_json AS rawJson
  FROM tests t LEFT JOIN tests_raw r ON r.seq = t.seq
  WHERE t.store_id = ? AND t.id = ?`;
const MARK_TEST_SEEN = `UPDATE tests SET last_seen_run = ?, synced_at = ?, removed = 0 WHERE seq = ?`;

const UPSERT_TEST = `
  INSERT INTO tests (
    store_id, id, title, status, stage, goal, device, visitor_option, hypothesis, handle,
    campaign_id, campaign_name, start_at, end_at, created_at, updated_at,
    priority, surface_area, impact, effort, implemented, tag_names,
    synced_at, last_seen_run, removed
  ) VALUES (
    @storeId, @id, @title, @status, @stage, @goal, @device, @visitorOption, @hypothesis, @handle,
    @campaignId, @campaignName, @startAt, @endAt, @createdAt, @updatedAt,
    @priority, @surfaceArea, @impact, @effort, @implemented, @tagNames,
    @syncedAt, @runId, 0
  )
  ON CONFLICT (store_id, id) DO UPDATE SET
    title = excluded.title, status = excluded.status, stage = excluded.stage, goal = excluded.goal,
    device = excluded.device, visitor_option = excluded.visitor_option, hypothesis = excluded.hypothesis,
    handle = excluded.handle, campaign_id = excluded.campaign_id, campaign_name = excluded.campaign_name,
    start_at = excluded.start_at, end_at = excluded.end_at, created_at = excluded.created_at,
    updated_at = excluded.updated_at, priority = excluded.priority, surface_area = excluded.surface_area,
    impact = excluded.impact, effort = excluded.effort, implemented = excluded.implemented,
    tag_names = excluded.tag_names, synced_at = excluded.synced_at,
    last_seen_run = excluded.last_seen_run, removed = 0
  RETURNING seq`;
const SAVE_TEST_RAW = `INSERT OR REPLACE INTO tests_raw (seq, raw_json) VALUES (?, ?)`;

/** The rows that hang off a test and are rewritten with it. */
const TEST_PARTS = [
  'test_sides',
  'test_tags',
  'test_custom_audiences',
  'test_default_audiences',
] as const;
const DELETE_TEST_PARTS = TEST_PARTS.map(
  (table) => `DELETE FROM ${table} WHERE store_id = ? AND test_id = ?`,
);

const INSERT_SIDE = `
  INSERT INTO test_sides (store_id, test_id, side, side_id, type, suffix, theme_id, traffic, title, redirect_url, screenshot_url)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_TEST_TAG = `INSERT OR REPLACE INTO test_tags (store_id, test_id, tag_id, name) VALUES (?, ?, ?, ?)`;
const UPSERT_TAG = `
  INSERT INTO tags (store_id, id, name) VALUES (?, ?, ?)
  ON CONFLICT (store_id, id) DO UPDATE SET name = excluded.name`;
const INSERT_TEST_CUSTOM_AUDIENCE = `
  INSERT OR REPLACE INTO test_custom_audiences (store_id, test_id, audience_id, name) VALUES (?, ?, ?, ?)`;
const UPSERT_DEFAULT_AUDIENCE = `
  INSERT INTO default_audiences (store_id, id, name, dimension, operator, value) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (store_id, id) DO UPDATE SET
    name = excluded.name, dimension = excluded.dimension, operator = excluded.operator, value = excluded.value`;
const INSERT_TEST_DEFAULT_AUDIENCE = `
  INSERT OR IGNORE INTO test_default_audiences (store_id, test_id, audience_id) VALUES (?, ?, ?)`;

function writeTest(
  db: Db,
  storeId: string,
  test: Test,
  rawJson: string,
  runId: string,
  syncedAt: string,
  hadParts: boolean,
): void {
  // An upsert, never REPLACE: replacing would delete the row and cascade away its results.
  const written = statement<{ seq: number }>(db, UPSERT_TEST).get({
    storeId,
    id: test.id,
    title: test.title,
    status: test.status,
    stage: test.stage,
    goal: test.goal,
    device: test.device,
    visitorOption: test.visitorOption,
    hypothesis: test.hypothesisDescription,
    handle: test.handle,
    campaignId: test.campaign?.id ?? null,
    campaignName: test.campaign?.name ?? null,
    startAt: test.startAt,
    endAt: test.endAt,
    createdAt: test.createdAt,
    updatedAt: test.updatedAt,
    priority: test.priority,
    surfaceArea: test.surfaceArea,
    impact: test.impact,
    effort: test.effort,
    implemented: toFlag(test.implemented),
    tagNames: JSON.stringify(test.tags.map((tag) => tag.name)),
    syncedAt,
    runId,
  });
  if (!written) throw new Error(`Upserting test ${test.id} returned no row`);
  statement(db, SAVE_TEST_RAW).run(written.seq, rawJson);
  if (hadParts) for (const sql of DELETE_TEST_PARTS) statement(db, sql).run(storeId, test.id);

  const sides = [['control', test.control] as const, ['variant', test.variant] as const];
  for (const [side, value] of sides) {
    if (!value) continue;
    statement(db, INSERT_SIDE).run(
      storeId,
      test.id,
      side,
      value.id,
      value.type,
      value.suffix,
      value.themeId,
      value.traffic,
      opaqueText(value.title),
      opaqueText(value.redirectUrl),
      opaqueText(value.screenshotUrl),
    );
  }
  for (const tag of test.tags) {
    statement(db, INSERT_TEST_TAG).run(storeId, test.id, tag.id, tag.name);
    statement(db, UPSERT_TAG).run(storeId, tag.id, tag.name);
  }
  for (const audience of test.customAudiences) {
    statement(db, INSERT_TEST_CUSTOM_AUDIENCE).run(storeId, test.id, audience.id, audience.name);
  }
  for (const audience of test.defaultAudiences) {
    statement(db, UPSERT_DEFAULT_AUDIENCE).run(
      storeId,
      audience.id,
      audience.name,
      audience.dimension,
      audience.operator,
      audience.value,
    );
    statement(db, INSERT_TEST_DEFAULT_AUDIENCE).run(storeId, test.id, audience.id);
  }
}

/**
 * Records that the run listed these tests although they failed validation (they were set
 * aside): the cached version stays, and the test counts as seen, so it is not marked removed.
 */
export function markSeenInRun(
  db: Db,
  storeId: string,
  testIds: readonly string[],
  runId: string,
): void {
  if (testIds.length === 0) return;
  const ids = JSON.stringify(testIds);
  db.transaction(() => {
    statement(db, MARK_TESTS_SEEN).run(runId, storeId, ids);
    statement(db, MARK_SET_ASIDE_TESTS_SEEN).run(runId, storeId, ids);
  })();
}

const MARK_TESTS_SEEN = `
  UPDATE tests SET last_seen_run = ?, removed = 0
  WHERE store_id = ? AND id IN (SELECT value FROM json_each(?))`;
const MARK_SET_ASIDE_TESTS_SEEN = `
  UPDATE set_aside SET run_id = ?
  WHERE store_id = ? AND resource = 'test' AND record_id IN (SELECT value FROM json_each(?))`;

/**
 * How many distinct tests the run has seen: cached ones it listed, plus set-aside ones
 * (marked by markSeenInRun or set aside with the runId) that are not cached.
 * Compared with the listing's totalCount to tell whether the listing was complete.
 */
export function countSeenInRun(db: Db, storeId: string, runId: string): number {
  return statement<{ n: number }>(db, COUNT_SEEN_IN_RUN).get({ storeId, runId })?.n ?? 0;
}

const COUNT_SEEN_IN_RUN = `
  SELECT
    (SELECT count(*) FROM tests WHERE store_id = @storeId AND last_seen_run = @runId)
    + (SELECT count(*) FROM set_aside a
       WHERE a.store_id = @storeId AND a.resource = 'test' AND a.record_id <> '' AND a.run_id = @runId
         AND NOT EXISTS (SELECT 1 FROM tests t
                         WHERE t.store_id = a.store_id AND t.id = a.record_id AND t.last_seen_run = @runId)) AS n`;

/**
 * After a COMPLETE listing: tests the run did not see are marked removed (kept, not
 * deleted, so their history stays readable). Set-aside tests of earlier runs that this
 * listing no longer holds are forgotten; one set aside without a run id is kept, since
 * nothing tells which run saw it. Returns how many tests were newly marked removed.
 */
export function markMissingRemoved(db: Db, storeId: string, runId: string): number {
  return db.transaction(() => {
    const marked = statement(db, MARK_MISSING_REMOVED).run(storeId, runId, storeId, runId).changes;
    statement(db, FORGET_STALE_SET_ASIDE_TESTS).run(storeId, runId);
    return marked;
  })();
}

const MARK_MISSING_REMOVED = `
  UPDATE tests SET removed = 1
  WHERE store_id = ? AND removed = 0 AND last_seen_run IS NOT ?
    AND id NOT IN (SELECT record_id FROM set_aside WHERE store_id = ? AND resource = 'test' AND run_id = ?)`;
const FORGET_STALE_SET_ASIDE_TESTS = `
  DELETE FROM set_aside WHERE store_id = ? AND resource = 'test' AND run_id IS NOT NULL AND run_id <> ?`;

// ---------- results ----------

/** Metric -> column; a metric added to the schema fails the type check here until it has a column. */
const METRIC_COLUMNS: Record<SideMetric, string> = {
  visitors: 'visitors',
  visits: 'visits',
  clicks: 'clicks',
  carts: 'carts',
  conversions: 'conversions',
  orders: 'orders',
  totalOrders: 'total_orders',
  totalConversions: 'total_conversions',
  initialSubscriptionConversions: 'initial_subscription_conversions',
  initialSubscriptionOrders: 'initial_subscription_orders',
  initialSubscriptionRevenue: 'initial_subscription_revenue',
  cnv: 'cnv',
  cvr: 'cvr',
  aov: 'aov',
  rps: 'rps',
  rpv: 'rpv',
  ctr: 'ctr',
  acr: 'acr',
  revenue: 'revenue',
  totalRevenue: 'total_revenue',
};
const METRIC_COLUMN_LIST = SIDE_METRICS.map((metric) => METRIC_COLUMNS[metric]).join(', ');
const METRIC_PLACEHOLDERS = SIDE_METRICS.map(() => '?').join(', ');

const DELETE_RESULTS = `DELETE FROM results WHERE store_id = ? AND test_id = ?`;
const INSERT_RESULTS = `
  INSERT INTO results (
    store_id, test_id, status, total_visitors, control_split, variant_split, winner, lift, change_revenue,
    control_probability_win, variant_probability_win, tier, leading_variant, probability_to_win,
    not_yet_stable, tier_reached_at, fetched_at, test_updated_at, test_status
  ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_RESULTS_RAW = `INSERT INTO results_raw (store_id, test_id, raw_json) VALUES (?, ?, ?)`;
const INSERT_RESULT_SIDE = `
  INSERT INTO result_sides (store_id, test_id, side, segment, ${METRIC_COLUMN_LIST})
  VALUES (?, ?, ?, ?, ${METRIC_PLACEHOLDERS})`;
const INSERT_RESULT_DAY = `
  INSERT OR REPLACE INTO result_daily (store_id, test_id, day, side, ${METRIC_COLUMN_LIST})
  VALUES (?, ?, ?, ?, ${METRIC_PLACEHOLDERS})`;
const INSERT_LIFECYCLE = `
  INSERT OR REPLACE INTO result_lifecycles (
    store_id, test_id, goal, tier, tier_reached_at, leading_variant, probability_to_win, not_yet_stable
  ) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
const COPY_RESULTS_TO_TEST = `
  UPDATE tests SET probability_to_win = ?, lift = ?, visitors = ?, tier = ? WHERE store_id = ? AND id = ?`;

/**
 * Replaces a test's cached results and all their typed rows. `testUpdatedAt` and
 * `testStatus` are the test as it was when the results were fetched (see testsNeedingResults).
 */
export function upsertResults(
  db: Db,
  storeId: string,
  testId: string,
  results: TestResults,
  raw: unknown,
  fetchedAt: string,
  testUpdatedAt: string,
  testStatus: string,
): void {
  db.transaction(() => {
    // Deleting cascades to the raw JSON, sides, days and lifecycles: nothing of the old results lingers.
    statement(db, DELETE_RESULTS).run(storeId, testId);
    const { lifecycle } = results;
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
      fetchedAt,
      testUpdatedAt,
      testStatus,
    );
    statement(db, INSERT_RESULTS_RAW).run(storeId, testId, toJson(raw, results));
    for (const [side, stats] of [
      ['control', results.control] as const,
      ['variant', results.variant] as const,
    ]) {
      statement(db, INSERT_RESULT_SIDE).run(storeId, testId, side, 'all', ...metricValues(stats));
      for (const segment of SEGMENTS) {
        const part = stats[segment];
        if (part)
          statement(db, INSERT_RESULT_SIDE).run(
            storeId,
            testId,
            side,
            segment,
            ...metricValues(part),
          );
      }
    }
    for (const [day, point] of Object.entries(results.daily)) {
      const { control, variant } = point.performance;
      statement(db, INSERT_RESULT_DAY).run(
        storeId,
        testId,
        day,
        'control',
        ...metricValues(control),
      );
      statement(db, INSERT_RESULT_DAY).run(
        storeId,
        testId,
        day,
        'variant',
        ...metricValues(variant),
      );
    }
    for (const [goal, model] of Object.entries(results.lifecycleByGoal)) {
      statement(db, INSERT_LIFECYCLE).run(
        storeId,
        testId,
        Number(goal),
        model.tier,
        model.tierReachedAt,
        model.leadingVariant,
        model.probabilityToWin,
        toFlag(model.notYetStable),
      );
    }
    statement(db, COPY_RESULTS_TO_TEST).run(
      results.variantProbabilityWin,
      results.lift,
      results.totalVisitors,
      results.lifecycle.tier,
      storeId,
      testId,
    );
    statement(db, DELETE_SET_ASIDE).run(storeId, 'results', testId);
  })();
}

function metricValues(stats: SideStatistics): number[] {
  return SIDE_METRICS.map((metric) => stats[metric]);
}

const NEEDING_RESULTS_CANDIDATES = `
  SELECT t.id, t.status, t.updated_at AS updatedAt, r.fetched_at AS fetchedAt,
         r.test_updated_at AS fetchedForUpdatedAt, r.test_status AS fetchedForStatus
  FROM tests t LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  WHERE t.store_id = ? AND t.removed = 0
  ORDER BY t.updated_at DESC, t.id`;

type ResultsCandidate = {
  id: string;
  status: string;
  updatedAt: string;
  fetchedAt: string | null;
  fetchedForUpdatedAt: string | null;
  fetchedForStatus: string | null;
};

/**
 * The launched tests whose results can have changed since they were cached: never
 * fetched, edited since, ended after the fetch, or still live. Everything else is
 * skipped, so a re-sync where nothing changed asks for almost no results. With
 * `freshness`, a live test's results younger than `liveMaxAgeMs` are kept too (a sync
 * right after a sync asks for nothing). Most recently updated first. The status rules
 * are the shared domain's, applied here in TS over one lean query.
 */
export function testsNeedingResults(
  db: Db,
  storeId: string,
  freshness: ResultsFreshness | null = null,
): TestNeedingResults[] {
  const now = freshness ? Date.parse(freshness.now) : Number.NaN;
  const candidates = statement<ResultsCandidate>(db, NEEDING_RESULTS_CANDIDATES).all(storeId);
  return candidates
    .filter((test) =>
      needsResults(test, freshness ? { now, maxAgeMs: freshness.liveMaxAgeMs } : null),
    )
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
  if (test.updatedAt !== test.fetchedForUpdatedAt) return true;
  if (isEnded(test.status)) return !isEnded(test.fetchedForStatus);
  if (!isLive(test.status)) return false;
  // An unparseable time is never fresh: better one request too many than stale figures.
  const age = fresh ? fresh.now - Date.parse(test.fetchedAt) : Number.NaN;
  return !(age >= 0 && fresh !== null && age < fresh.maxAgeMs);
}

// ---------- campaigns and audiences (full lists: replaced whole) ----------

const DELETE_CAMPAIGNS = `DELETE FROM campaigns WHERE store_id = ?`;
const INSERT_CAMPAIGN = `
  INSERT OR REPLACE INTO campaigns (
    store_id, id, name, objective, goal, status, created_at,
    progress_total, progress_live, progress_paused, progress_draft, progress_ended, raw_json, synced_at
  ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Replaces the store's active campaigns with this complete list. */
export function replaceCampaigns(
  db: Db,
  storeId: string,
  items: readonly CampaignItem[],
  syncedAt: string,
): void {
  db.transaction(() => {
    statement(db, DELETE_CAMPAIGNS).run(storeId);
    for (const { campaign, raw } of items) {
      const { progress } = campaign;
      statement(db, INSERT_CAMPAIGN).run(
        storeId,
        campaign.id,
        campaign.name,
        campaign.objective,
        campaign.goal,
        campaign.status,
        campaign.createdAt,
        progress.total,
        progress.live,
        progress.paused,
        progress.draft,
        progress.ended,
        toJson(raw, campaign),
        syncedAt,
      );
      statement(db, DELETE_SET_ASIDE).run(storeId, 'campaign', campaign.id);
    }
  })();
}

const DELETE_AUDIENCES = `DELETE FROM custom_audiences WHERE store_id = ?`;
const INSERT_AUDIENCE = `
  INSERT OR REPLACE INTO custom_audiences (store_id, id, name, rules_json, raw_json, synced_at)
  VALUES (?, ?, ?, ?, ?, ?)`;

/** Replaces the store's custom audiences with this complete list. */
export function replaceCustomAudiences(
  db: Db,
  storeId: string,
  items: readonly AudienceItem[],
  syncedAt: string,
): void {
  db.transaction(() => {
    statement(db, DELETE_AUDIENCES).run(storeId);
    for (const { audience, raw } of items) {
      statement(db, INSERT_AUDIENCE).run(
        storeId,
        audience.id,
        audience.name,
        JSON.stringify(audience.rules),
        toJson(raw, audience),
        syncedAt,
      );
      statement(db, DELETE_SET_ASIDE).run(storeId, 'audience', audience.id);
    }
  })();
}

// ---------- set-aside records ----------

const UPSERT_SET_ASIDE = `
  INSERT INTO set_aside (store_id, resource, record_id, error, raw_json, seen_at, run_id)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (store_id, resource, record_id) DO UPDATE SET
    error = excluded.error, raw_json = excluded.raw_json, seen_at = excluded.seen_at, run_id = excluded.run_id`;
const DELETE_SET_ASIDE = `DELETE FROM set_aside WHERE store_id = ? AND resource = ? AND record_id = ?`;

/**
 * Keeps a record that failed validation, with its error, so it can be reported. A record
 * without a usable id is keyed by '' (one per resource). For a test set aside during a
 * listing, pass the sync's `runId` (or call markSeenInRun): the run then counts it as seen.
 */
export function setAside(
  db: Db,
  storeId: string,
  resource: SetAsideResource,
  recordId: string | null,
  error: string,
  raw: unknown,
  seenAt: string,
  runId: string | null = null,
): void {
  statement(db, UPSERT_SET_ASIDE).run(
    storeId,
    resource,
    recordId ?? '',
    error,
    toJson(raw, null),
    seenAt,
    runId,
  );
}

export function clearSetAside(
  db: Db,
  storeId: string,
  resource: SetAsideResource,
  recordId: string | null,
): void {
  statement(db, DELETE_SET_ASIDE).run(storeId, resource, recordId ?? '');
}

// ---------- helpers ----------

/** The record as the server sent it; the parsed value only when no raw value was given. */
function toJson(raw: unknown, parsed: unknown): string {
  return JSON.stringify(raw === undefined ? parsed : raw) ?? 'null';
}

/** SQLite has no booleans (and better-sqlite3 refuses to bind them). */
function toFlag(value: boolean | null): 0 | 1 | null {
  return value === null ? null : value ? 1 : 0;
}

/** A value the spec leaves untyped: strings as they are, anything else as JSON. */
function opaqueText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
