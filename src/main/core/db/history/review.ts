// Reads and writes of the review memory in the user's file: each test's last seen state, snapshots, review marks.
import { DRIFT_FIELDS } from '#shared/domain/tracked-fields';
import { statement } from '../statements';
import type { Db } from '../types';

/** A test as the cache holds it now, with the state last recorded for it (null: never seen). */
export type TrackedRow = {
  id: string;
  status: string;
  stage: string;
  title: string;
  hypothesis: string | null;
  priority: string | null;
  surfaceArea: string | null;
  impact: number | null;
  effort: number | null;
  implemented: number | null;
  tagNames: string;
  campaignName: string | null;
  goal: string;
  device: string;
  startAt: string | null;
  endAt: string | null;
  removed: number;
  tier: string | null;
  leader: string | null;
  probabilityToWin: number | null;
  lift: number | null;
  resultsFetchedAt: string | null;
  /**
   * JSON array [control visitors, variant visitors, {goal: {tier}}] when the results changed since the
   * state: kept with the results (db/cache/results.ts reviewParts), or, for results cached before
   * cache migration 18, extracted from the raw record.
   */
  resultsParts: string | null;
  state: string | null;
  stateResultsFetchedAt: string | null;
};

// Only for results fetched since the state: their kept parts, or (cached before migration 18) the raw
// record's, which json_extract with several paths parses once.
const TRACKED = `
  SELECT t.id, t.status, t.stage, t.title, t.hypothesis, t.priority, t.surface_area AS surfaceArea,
         t.impact, t.effort, t.implemented, t.tag_names AS tagNames, t.campaign_name AS campaignName,
         t.goal, t.device, t.start_at AS startAt, t.end_at AS endAt, t.removed,
         r.tier, r.leading_variant AS leader, r.variant_probability_win AS probabilityToWin, r.lift,
         r.fetched_at AS resultsFetchedAt,
         CASE WHEN r.fetched_at IS NOT s.results_fetched_at
              THEN coalesce(r.review_parts,
                            json_extract(unpack_json(rr.raw_packed), '$.control.visitors', '$.variant.visitors', '$.lifecycleByGoal'))
         END AS resultsParts,
         s.state, s.results_fetched_at AS stateResultsFetchedAt
  FROM tests t
  LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  LEFT JOIN results_raw rr ON rr.store_id = t.store_id AND rr.test_id = t.id
  LEFT JOIN user.test_state s ON s.store_id = t.store_id AND s.test_id = t.id
  WHERE t.store_id = ?`;

export function trackedTests(db: Db, storeId: string): TrackedRow[] {
  return statement<TrackedRow>(db, TRACKED).all(storeId);
}

export function hasTrackedState(db: Db, storeId: string): boolean {
  return (
    statement(db, `SELECT 1 FROM user.test_state WHERE store_id = ? LIMIT 1`).get(storeId) !==
    undefined
  );
}

export type SnapshotWrite = {
  storeId: string;
  testId: string;
  at: string;
  baseline: boolean;
  /** Only the running figures moved. */
  drift: boolean;
  probabilityToWin: number | null;
  /** JSON of the test's state after the change (what History draws). */
  state: string;
  /** JSON object field -> [from, to]. */
  changes: string;
  resultsFetchedAt: string | null;
  /** JSON of everything compared next time (state plus metadata). */
  tracked: string;
};

const INSERT_SNAPSHOT = `
  INSERT INTO user.test_snapshots (store_id, test_id, at, baseline, drift, probability_to_win, state, changes)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
/**
 * The state, and the review window's ends (migration 8) moved by the new snapshot: it is the newest
 * unless an older time was written later (the clock set back), and the mark's if it is the last at or
 * before the store's reviewed_at (or, none being so, the first). Every right side reads the old row.
 */
const NEWEST = `(last_at IS NULL OR excluded.last_at >= last_at)`;
/** The oldest: ids only grow, so a snapshot at the same time as the first is not before it. */
const FIRST = `(first_at IS NULL OR excluded.first_at < first_at)`;
const MARK_AT = `coalesce((SELECT reviewed_at FROM user.store_marks WHERE store_id = excluded.store_id), '')`;
const MARKS = `(mark_at IS NULL
  OR (excluded.mark_at <= ${MARK_AT} AND (mark_at > ${MARK_AT} OR excluded.mark_at >= mark_at))
  OR (excluded.mark_at > ${MARK_AT} AND mark_at > ${MARK_AT} AND excluded.mark_at < mark_at))`;
const SAVE_STATE = `
  INSERT INTO user.test_state (store_id, test_id, state, results_fetched_at, last_at, last_probability, mark_at, mark_probability, first_at, first_probability)
  VALUES (@storeId, @testId, @tracked, @resultsFetchedAt, @at, @probabilityToWin, @at, @probabilityToWin, @at, @probabilityToWin)
  ON CONFLICT (store_id, test_id) DO UPDATE SET
    state = excluded.state,
    results_fetched_at = excluded.results_fetched_at,
    first_at = CASE WHEN ${FIRST} THEN excluded.first_at ELSE first_at END,
    first_probability = CASE WHEN ${FIRST} THEN excluded.first_probability ELSE first_probability END,
    last_at = CASE WHEN ${NEWEST} THEN excluded.last_at ELSE last_at END,
    last_probability = CASE WHEN ${NEWEST} THEN excluded.last_probability ELSE last_probability END,
    mark_at = CASE WHEN ${MARKS} THEN excluded.mark_at ELSE mark_at END,
    mark_probability = CASE WHEN ${MARKS} THEN excluded.mark_probability ELSE mark_probability END`;
const REVIEWED_AT = `coalesce((SELECT reviewed_at FROM user.store_marks WHERE store_id = @storeId), '')`;
const LATER = `excluded.last_at >= last_at`;
const EARLIER = `excluded.first_at < first_at`;
const MARK_FIRST = `(excluded.mark_at IS NOT NULL AND (mark_at IS NULL OR excluded.mark_at < mark_at))`;
/**
 * The net changes (migration 9) moved by the new snapshot, one row per field it changed that the
 * Changes view nets: its first change, its last, and its first after the store's review mark, each by
 * time then id (ids only grow, so a tie keeps the older first and takes the newer last).
 */
const SAVE_NETS = `
  INSERT INTO user.change_nets
    (store_id, test_id, field, first_at, first_id, first_from, last_at, last_id, last_to, mark_at, mark_id, mark_from)
  SELECT @storeId, @testId, j.key, @at, @id, j.value -> 0, @at, @id, j.value -> 1,
         CASE WHEN m.after THEN @at END, CASE WHEN m.after THEN @id END, CASE WHEN m.after THEN j.value -> 0 END
  FROM json_each(@changes) j, (SELECT @at > ${REVIEWED_AT} AS after) m
  WHERE j.key NOT IN (SELECT value FROM json_each(@drift))
  ON CONFLICT (store_id, test_id, field) DO UPDATE SET
    first_at = CASE WHEN ${EARLIER} THEN excluded.first_at ELSE first_at END,
    first_id = CASE WHEN ${EARLIER} THEN excluded.first_id ELSE first_id END,
    first_from = CASE WHEN ${EARLIER} THEN excluded.first_from ELSE first_from END,
    last_at = CASE WHEN ${LATER} THEN excluded.last_at ELSE last_at END,
    last_id = CASE WHEN ${LATER} THEN excluded.last_id ELSE last_id END,
    last_to = CASE WHEN ${LATER} THEN excluded.last_to ELSE last_to END,
    mark_at = CASE WHEN ${MARK_FIRST} THEN excluded.mark_at ELSE mark_at END,
    mark_id = CASE WHEN ${MARK_FIRST} THEN excluded.mark_id ELSE mark_id END,
    mark_from = CASE WHEN ${MARK_FIRST} THEN excluded.mark_from ELSE mark_from END`;
const TOUCH_STATE = `UPDATE user.test_state SET results_fetched_at = ? WHERE store_id = ? AND test_id = ?`;

/** Forgets what was seen of a store's tests (its key now reads another store): the next sync is a baseline. */
export function forgetStoreReview(db: Db, storeId: string): void {
  statement(db, `DELETE FROM user.test_state WHERE store_id = ?`).run(storeId);
  statement(db, `DELETE FROM user.test_snapshots WHERE store_id = ?`).run(storeId);
  statement(db, `DELETE FROM user.change_nets WHERE store_id = ?`).run(storeId);
  statement(db, `DELETE FROM user.store_marks WHERE store_id = ?`).run(storeId);
}

const DRIFT_JSON = JSON.stringify(DRIFT_FIELDS);

export function writeSnapshot(db: Db, s: SnapshotWrite): void {
  const { lastInsertRowid: id } = statement(db, INSERT_SNAPSHOT).run(
    s.storeId,
    s.testId,
    s.at,
    s.baseline ? 1 : 0,
    s.drift ? 1 : 0,
    s.probabilityToWin,
    s.state,
    s.changes,
  );
  // A baseline changes nothing, and drift only moves what the view compares at the window's ends.
  if (!s.baseline && !s.drift)
    statement(db, SAVE_NETS).run({
      storeId: s.storeId,
      testId: s.testId,
      at: s.at,
      id,
      changes: s.changes,
      drift: DRIFT_JSON,
    });
  statement(db, SAVE_STATE).run({
    storeId: s.storeId,
    testId: s.testId,
    tracked: s.tracked,
    resultsFetchedAt: s.resultsFetchedAt,
    at: s.at,
    probabilityToWin: s.probabilityToWin,
  });
}

/**
 * The review window's ends of every test of a store worked out again from its snapshots: after the
 * mark moved, or thinning took snapshots. The same rule as SAVE_STATE's, by index walks.
 */
export function refreshReviewEnds(db: Db, storeId: string): void {
  statement(
    db,
    `UPDATE user.test_state AS s SET
       (last_at, last_probability) = (
         SELECT x.at, x.probability_to_win FROM user.test_snapshots x
         WHERE x.store_id = s.store_id AND x.test_id = s.test_id ORDER BY x.at DESC, x.id DESC LIMIT 1),
       (first_at, first_probability) = (
         SELECT x.at, x.probability_to_win FROM user.test_snapshots x
         WHERE x.store_id = s.store_id AND x.test_id = s.test_id ORDER BY x.at, x.id LIMIT 1),
       (mark_at, mark_probability) = (
         SELECT x.at, x.probability_to_win FROM user.test_snapshots x
         WHERE x.store_id = s.store_id AND x.test_id = s.test_id
           AND x.at <= coalesce((SELECT m.reviewed_at FROM user.store_marks m WHERE m.store_id = s.store_id), '')
         ORDER BY x.at DESC, x.id DESC LIMIT 1)
     WHERE s.store_id = ?`,
  ).run(storeId);
  statement(
    db,
    `UPDATE user.test_state AS s SET
       (mark_at, mark_probability) = (
         SELECT x.at, x.probability_to_win FROM user.test_snapshots x
         WHERE x.store_id = s.store_id AND x.test_id = s.test_id ORDER BY x.at, x.id LIMIT 1)
     WHERE s.store_id = ? AND s.mark_at IS NULL`,
  ).run(storeId);
}

/** Results were fetched again but nothing material moved: remember not to read them again. */
export function touchTrackedState(
  db: Db,
  storeId: string,
  testId: string,
  resultsFetchedAt: string | null,
): void {
  statement(db, TOUCH_STATE).run(resultsFetchedAt, storeId, testId);
}

export type SnapshotRow = {
  id: number;
  storeId: string;
  testId: string;
  at: string;
  baseline: number;
  state: string;
  changes: string;
};

const SNAPSHOT_COLUMNS = `id, store_id AS storeId, test_id AS testId, at, baseline, state, changes`;

/** A field's net change over a window, values as JSON text; `start*`: its first change in the window. */
export type NetRow = {
  testId: string;
  field: string;
  fromJson: string;
  toJson: string;
  /** Its last change in the window. */
  at: string;
  startAt: string;
  startId: number;
};

/**
 * The net change of each field (migration 9's rows) of a store's tests changed after `since`, from the
 * rows alone when the window opens before the field's first change or at the store's review mark;
 * any other time walks that field's snapshots for its first change in the window (firstChangeAfter).
 */
export function changeNets(
  db: Db,
  storeId: string,
  since: string,
  reviewedAt: string | null,
): NetRow[] {
  const rows = statement<NetRow & { known: number }>(
    db,
    `SELECT test_id AS testId, field, last_to AS toJson, last_at AS at,
            first_at > @since OR @since IS @reviewedAt AS known,
            CASE WHEN first_at > @since THEN first_from ELSE mark_from END AS fromJson,
            CASE WHEN first_at > @since THEN first_at ELSE mark_at END AS startAt,
            CASE WHEN first_at > @since THEN first_id ELSE mark_id END AS startId
     FROM user.change_nets WHERE store_id = @storeId AND last_at > @since`,
  ).all({ storeId, since, reviewedAt });
  // In place: most rows are known, and a copy of each was most of this function's time.
  for (const row of rows)
    if (row.known !== 1)
      Object.assign(row, firstChangeAfter(db, storeId, row.testId, row.field, since));
  return rows;
}

/** A field's first change after `since` (a change after it exists): its from value, time and id. */
function firstChangeAfter(
  db: Db,
  storeId: string,
  testId: string,
  field: string,
  since: string,
): Pick<NetRow, 'fromJson' | 'startAt' | 'startId'> {
  const row = statement<Pick<NetRow, 'fromJson' | 'startAt' | 'startId'>>(
    db,
    `SELECT j.value -> 0 AS fromJson, x.at AS startAt, x.id AS startId
     FROM user.test_snapshots x, json_each(x.changes) j
     WHERE x.store_id = ? AND x.test_id = ? AND x.at > ? AND x.drift = 0 AND x.baseline = 0
       AND json_valid(x.changes) AND j.key = ?
     ORDER BY x.at, x.id LIMIT 1`,
  ).get(storeId, testId, since, field);
  if (!row) throw new Error(`No change of ${field} of test ${testId} after ${since}`);
  return row;
}

/** The first change after the store's review mark of each field: worked out again when the mark moves. */
function refreshNetMarks(db: Db, storeId: string): void {
  statement(
    db,
    `UPDATE user.change_nets AS n SET (mark_at, mark_id, mark_from) = (
       SELECT x.at, x.id, j.value -> 0
       FROM user.test_snapshots x, json_each(x.changes) j
       WHERE x.store_id = n.store_id AND x.test_id = n.test_id AND x.drift = 0 AND x.baseline = 0
         AND json_valid(x.changes) AND j.key = n.field AND x.at > @reviewedAt
       ORDER BY x.at, x.id LIMIT 1)
     WHERE n.store_id = @storeId`,
  ).run({ storeId, reviewedAt: storeMark(db, storeId).reviewedAt ?? '' });
}

/** When the store was first synced with snapshots on: where an unreviewed store's changes start. */
export function firstSnapshotAt(db: Db, storeId: string): string | null {
  return (
    statement<{ at: string | null }>(
      db,
      // Per drift value: the index then gives each minimum at once.
      `SELECT min(at) AS at FROM (
         SELECT min(at) AS at FROM user.test_snapshots WHERE store_id = @storeId AND drift = 0
         UNION ALL
         SELECT min(at) FROM user.test_snapshots WHERE store_id = @storeId AND drift = 1)`,
    ).get({ storeId })?.at ?? null
  );
}

export type ProbabilityEnds = {
  testId: string;
  before: number | null;
  beforeKnown: number;
  now: number | null;
  nowAt: string | null;
};

/**
 * Per test of a store with a snapshot after `since`: the probability to win as of `since` (or first
 * known) and the newest. The ends are kept on the test's state row (migrations 8 and 9): the newest,
 * the first (a window opening before it), the store's review mark's (the Changes view's usual window);
 * any other time walks the test's snapshots back from `since`. By test id.
 */
export function probabilityEnds(
  db: Db,
  storeId: string,
  since: string,
  /** Only the tests whose probability moved more than this (null: every test). */
  movedMoreThan: number | null = null,
): ProbabilityEnds[] {
  return statement<ProbabilityEnds>(
    db,
    `SELECT * FROM (SELECT test_id AS testId,
            CASE WHEN first_at > @since THEN first_probability
                 WHEN @since IS @reviewedAt THEN mark_probability
                 ELSE (SELECT x.probability_to_win FROM user.test_snapshots x
                       WHERE x.store_id = s.store_id AND x.test_id = s.test_id AND x.at <= @since
                       ORDER BY x.at DESC, x.id DESC LIMIT 1) END AS before,
            first_at IS NOT NULL AS beforeKnown,
            last_probability AS now, last_at AS nowAt
     FROM user.test_state s WHERE store_id = @storeId AND last_at > @since ORDER BY test_id)
     WHERE @movedMoreThan IS NULL OR abs(now - before) > @movedMoreThan`,
  ).all({ storeId, since, reviewedAt: storeMark(db, storeId).reviewedAt, movedMoreThan });
}

/** Every snapshot of one test, oldest first. */
export function testSnapshots(db: Db, storeId: string, testId: string): SnapshotRow[] {
  return statement<SnapshotRow>(
    db,
    `SELECT ${SNAPSHOT_COLUMNS} FROM user.test_snapshots WHERE store_id = ? AND test_id = ? ORDER BY id`,
  ).all(storeId, testId);
}

export function countSnapshots(db: Db, storeId: string | null = null): number {
  return (
    statement<{ n: number }>(
      db,
      `SELECT count(*) AS n FROM user.test_snapshots WHERE @storeId IS NULL OR store_id = @storeId`,
    ).get({ storeId })?.n ?? 0
  );
}

/** The state before the first change after `since`: the last snapshot at or before it. */
export function stateAt(db: Db, storeId: string, testId: string, at: string): string | null {
  return (
    statement<{ state: string }>(
      db,
      `SELECT state FROM user.test_snapshots WHERE store_id = ? AND test_id = ? AND at <= ?
       ORDER BY id DESC LIMIT 1`,
    ).get(storeId, testId, at)?.state ?? null
  );
}

export type StoreMark = {
  storeId: string;
  reviewedAt: string | null;
  compactedUntil: string | null;
};

export function storeMark(db: Db, storeId: string): StoreMark {
  return (
    statement<StoreMark>(
      db,
      `SELECT store_id AS storeId, reviewed_at AS reviewedAt, compacted_until AS compactedUntil
       FROM user.store_marks WHERE store_id = ?`,
    ).get(storeId) ?? { storeId, reviewedAt: null, compactedUntil: null }
  );
}

export function markReviewed(db: Db, storeId: string, at: string): void {
  db.transaction(() => {
    statement(
      db,
      `INSERT INTO user.store_marks (store_id, reviewed_at) VALUES (?, ?)
       ON CONFLICT (store_id) DO UPDATE SET reviewed_at = excluded.reviewed_at`,
    ).run(storeId, at);
    refreshReviewEnds(db, storeId);
    refreshNetMarks(db, storeId);
  }).immediate();
}

export function markCompacted(db: Db, storeId: string, until: string): void {
  statement(
    db,
    `INSERT INTO user.store_marks (store_id, compacted_until) VALUES (?, ?)
     ON CONFLICT (store_id) DO UPDATE SET compacted_until = excluded.compacted_until`,
  ).run(storeId, until);
}

/**
 * Thins snapshots in [from, until) whose changes are only drift of the running figures (visitors,
 * lift, probability): one per test and week is kept (the week's last), so History keeps its curve
 * while a year of daily syncs stays bounded. Snapshots with any other change are never deleted.
 */
export function thinDriftSnapshots(db: Db, storeId: string, from: string, until: string): number {
  return statement(
    db,
    `DELETE FROM user.test_snapshots WHERE id IN (
       SELECT id FROM (
         SELECT id,
                row_number() OVER (PARTITION BY test_id, strftime('%Y-%W', at) ORDER BY at DESC, id DESC) AS rank
         FROM user.test_snapshots
         WHERE store_id = ? AND drift = 1 AND at >= ? AND at < ?
       )
       WHERE rank > 1
     )`,
  ).run(storeId, from, until).changes;
}

/**
 * Titles of some of a store's tests as the cache holds them, falling back to the last recorded title of
 * one the cache lost (a test without either is left out). Only the cache's narrow rows are read for
 * most: a test's recorded state is wide.
 */
export function testTitles(
  db: Db,
  storeId: string,
  testIds: Iterable<string>,
): Map<string, string> {
  // One walk of the covering index (cache migration 17), not a lookup of each wide row.
  const cached = new Map<string, string>();
  for (const row of statement<{ id: string; title: string }>(
    db,
    `SELECT id, title FROM tests INDEXED BY tests_titles WHERE store_id = ?`,
  ).all(storeId))
    cached.set(row.id, row.title);
  const titles = new Map<string, string>();
  const recorded = statement<{ title: string | null }>(
    db,
    `SELECT json_extract(state, '$.meta.title') AS title FROM user.test_state
     WHERE store_id = ? AND test_id = ?`,
  );
  for (const id of testIds) {
    const title = cached.get(id) ?? recorded.get(storeId, id)?.title ?? null;
    if (title !== null) titles.set(id, title);
  }
  return titles;
}

/** What the portfolio counts of one cached test (removed ones left out). */
export type PortfolioRow = {
  storeId: string;
  status: string;
  startAt: string | null;
  endAt: string | null;
  campaignId: string | null;
  campaignName: string | null;
  surfaceArea: string | null;
  tagNames: string;
  /** Splitbook's call on the goal (db/decisions.ts), null without one. */
  decision: string | null;
  /** The results' change in revenue, read for a test whose call is ship only (the winners' sum); else null. */
  changeRevenue: number | null;
  /** 'YYYY-MM-DD' of the day a concluding call was made (its look), else null. */
  decidedOn: string | null;
};

/**
 * Every cached test the portfolio counts, by store, status and row (the order its counts meet labels
 * and its revenue sums in, read straight off tests_by_removed).
 */
export function portfolioRows(db: Db): PortfolioRow[] {
  return statement<PortfolioRow>(
    db,
    `SELECT t.store_id AS storeId, t.status, t.start_at AS startAt, t.end_at AS endAt,
            t.campaign_id AS campaignId, t.campaign_name AS campaignName, t.surface_area AS surfaceArea,
            t.tag_names AS tagNames, t.decision,
            CASE WHEN t.decision = 'ship' THEN
              (SELECT r.change_revenue FROM results r WHERE r.store_id = t.store_id AND r.test_id = t.id)
            END AS changeRevenue,
            CASE WHEN t.decision IN ('ship', 'keep_control', 'no_difference') THEN
              (SELECT json_extract(d.decision_json, '$.look.date') FROM tests_decision d WHERE d.seq = t.seq)
            END AS decidedOn
     FROM tests t
     WHERE t.removed = 0
     ORDER BY t.store_id, t.status, t.seq`,
  ).all();
}
