// Reads and writes of the review memory in the user's file: each test's last seen state, snapshots, review marks.
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
  /** JSON array [control visitors, variant visitors, lifecycleByGoal] when the results changed since the state. */
  resultsParts: string | null;
  state: string | null;
  stateResultsFetchedAt: string | null;
};

// json_extract with several paths parses the raw results once, and only for results fetched since the state.
const TRACKED = `
  SELECT t.id, t.status, t.stage, t.title, t.hypothesis, t.priority, t.surface_area AS surfaceArea,
         t.impact, t.effort, t.implemented, t.tag_names AS tagNames, t.campaign_name AS campaignName,
         t.goal, t.device, t.start_at AS startAt, t.end_at AS endAt, t.removed,
         r.tier, r.leading_variant AS leader, r.variant_probability_win AS probabilityToWin, r.lift,
         r.fetched_at AS resultsFetchedAt,
         CASE WHEN r.fetched_at IS NOT s.results_fetched_at
              THEN json_extract(unpack_json(rr.raw_packed), '$.control.visitors', '$.variant.visitors', '$.lifecycleByGoal')
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
const MARK_AT = `coalesce((SELECT reviewed_at FROM user.store_marks WHERE store_id = excluded.store_id), '')`;
const MARKS = `(mark_at IS NULL
  OR (excluded.mark_at <= ${MARK_AT} AND (mark_at > ${MARK_AT} OR excluded.mark_at >= mark_at))
  OR (excluded.mark_at > ${MARK_AT} AND mark_at > ${MARK_AT} AND excluded.mark_at < mark_at))`;
const SAVE_STATE = `
  INSERT INTO user.test_state (store_id, test_id, state, results_fetched_at, last_at, last_probability, mark_at, mark_probability)
  VALUES (@storeId, @testId, @tracked, @resultsFetchedAt, @at, @probabilityToWin, @at, @probabilityToWin)
  ON CONFLICT (store_id, test_id) DO UPDATE SET
    state = excluded.state,
    results_fetched_at = excluded.results_fetched_at,
    last_at = CASE WHEN ${NEWEST} THEN excluded.last_at ELSE last_at END,
    last_probability = CASE WHEN ${NEWEST} THEN excluded.last_probability ELSE last_probability END,
    mark_at = CASE WHEN ${MARKS} THEN excluded.mark_at ELSE mark_at END,
    mark_probability = CASE WHEN ${MARKS} THEN excluded.mark_probability ELSE mark_probability END`;
const TOUCH_STATE = `UPDATE user.test_state SET results_fetched_at = ? WHERE store_id = ? AND test_id = ?`;

/** Forgets what was seen of a store's tests (its key now reads another store): the next sync is a baseline. */
export function forgetStoreReview(db: Db, storeId: string): void {
  statement(db, `DELETE FROM user.test_state WHERE store_id = ?`).run(storeId);
  statement(db, `DELETE FROM user.test_snapshots WHERE store_id = ?`).run(storeId);
  statement(db, `DELETE FROM user.store_marks WHERE store_id = ?`).run(storeId);
}

export function writeSnapshot(db: Db, s: SnapshotWrite): void {
  statement(db, INSERT_SNAPSHOT).run(
    s.storeId,
    s.testId,
    s.at,
    s.baseline ? 1 : 0,
    s.drift ? 1 : 0,
    s.probabilityToWin,
    s.state,
    s.changes,
  );
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

/** Snapshots of one store after `since` with more than drift in them (baselines are drift-free but excluded), oldest first. */
export function changedSnapshotsSince(
  db: Db,
  storeId: string,
  since: string,
): Pick<SnapshotRow, 'testId' | 'at' | 'changes'>[] {
  return statement<Pick<SnapshotRow, 'testId' | 'at' | 'changes'>>(
    db,
    `SELECT test_id AS testId, at, changes FROM user.test_snapshots
     WHERE store_id = ? AND drift = 0 AND at > ? AND baseline = 0 ORDER BY at, id`,
  ).all(storeId, since);
}

/** When the store was first synced with snapshots on: where an unreviewed store's changes start. */
export function firstSnapshotAt(db: Db, storeId: string): string | null {
  return (
    statement<{ at: string | null }>(
      db,
      `SELECT min(at) AS at FROM user.test_snapshots WHERE store_id = ?`,
    ).get(storeId)?.at ?? null
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
 * known) and the newest. Since the store's review mark (the Changes view's usual window) both ends are
 * kept on the test's state row (migration 8); any other time walks the snapshots (probabilityEndsAt).
 */
export function probabilityEnds(db: Db, storeId: string, since: string): ProbabilityEnds[] {
  if (since !== storeMark(db, storeId).reviewedAt) return probabilityEndsAt(db, storeId, since);
  return statement<ProbabilityEnds>(
    db,
    `SELECT test_id AS testId, mark_probability AS before, mark_at IS NOT NULL AS beforeKnown,
            last_probability AS now, last_at AS nowAt
     FROM user.test_state WHERE store_id = ? AND last_at > ?`,
  ).all(storeId, since);
}

/** probabilityEnds at any time, from the snapshots themselves (three index walks a test). */
export function probabilityEndsAt(db: Db, storeId: string, since: string): ProbabilityEnds[] {
  return statement<ProbabilityEnds>(
    db,
    `SELECT s.test_id AS testId,
            b.probability_to_win AS before, b.id IS NOT NULL AS beforeKnown,
            n.probability_to_win AS now, n.at AS nowAt
     FROM user.test_state s
     JOIN user.test_snapshots n ON n.id = (
       SELECT id FROM user.test_snapshots x WHERE x.store_id = s.store_id AND x.test_id = s.test_id
       ORDER BY x.at DESC, x.id DESC LIMIT 1)
     LEFT JOIN user.test_snapshots b ON b.id = coalesce(
       (SELECT id FROM user.test_snapshots x WHERE x.store_id = s.store_id AND x.test_id = s.test_id AND x.at <= @since
        ORDER BY x.at DESC, x.id DESC LIMIT 1),
       -- A date before Splitbook first saw the test: compare with the first state it knows.
       (SELECT id FROM user.test_snapshots x WHERE x.store_id = s.store_id AND x.test_id = s.test_id
        ORDER BY x.at, x.id LIMIT 1))
     WHERE s.store_id = @storeId AND n.at > @since`,
  ).all({ storeId, since });
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
  })();
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

/** Titles of a store's cached tests, falling back to the last recorded title of one the cache lost. */
export function testTitles(db: Db, storeId: string): Map<string, string> {
  const rows = statement<{ id: string; title: string | null }>(
    db,
    `SELECT s.test_id AS id, coalesce(t.title, json_extract(s.state, '$.meta.title')) AS title
     FROM user.test_state s LEFT JOIN tests t ON t.store_id = s.store_id AND t.id = s.test_id
     WHERE s.store_id = ?`,
  ).all(storeId);
  return new Map(rows.flatMap((r) => (r.title === null ? [] : [[r.id, r.title] as const])));
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
            END AS changeRevenue
     FROM tests t
     WHERE t.removed = 0
     ORDER BY t.store_id, t.status, t.seq`,
  ).all();
}
