// Reads and writes of the review memory in the user's file: each test's last seen state, snapshots, review marks.
import { DRIFT_FIELDS } from '#shared/domain/tracked-fields';
import { read, write } from '../sql';
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
const TRACKED = read<TrackedRow, { storeId: string }>(`
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
  WHERE t.store_id = @storeId`);

export function trackedTests(db: Db, storeId: string): TrackedRow[] {
  return TRACKED.all(db, { storeId });
}

const HAS_TRACKED_STATE = read<{ 1: number }, { storeId: string }>(
  `SELECT 1 FROM user.test_state WHERE store_id = @storeId LIMIT 1`,
);

export function hasTrackedState(db: Db, storeId: string): boolean {
  return HAS_TRACKED_STATE.get(db, { storeId }) !== undefined;
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

const INSERT_SNAPSHOT = write<{
  storeId: string;
  testId: string;
  at: string;
  baseline: number;
  drift: number;
  probabilityToWin: number | null;
  state: string;
  changes: string;
}>(`
  INSERT INTO user.test_snapshots (store_id, test_id, at, baseline, drift, probability_to_win, state, changes)
  VALUES (@storeId, @testId, @at, @baseline, @drift, @probabilityToWin, @state, @changes)`);
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
const SAVE_STATE = write<{
  storeId: string;
  testId: string;
  tracked: string;
  resultsFetchedAt: string | null;
  at: string;
  probabilityToWin: number | null;
}>(`
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
    mark_probability = CASE WHEN ${MARKS} THEN excluded.mark_probability ELSE mark_probability END`);
const REVIEWED_AT = `coalesce((SELECT reviewed_at FROM user.store_marks WHERE store_id = @storeId), '')`;
const LATER = `excluded.last_at >= last_at`;
const EARLIER = `excluded.first_at < first_at`;
const MARK_FIRST = `(excluded.mark_at IS NOT NULL AND (mark_at IS NULL OR excluded.mark_at < mark_at))`;
/**
 * The net changes (migration 9) moved by the new snapshot, one row per field it changed that the
 * Changes view nets: its first change, its last, and its first after the store's review mark, each by
 * time then id (ids only grow, so a tie keeps the older first and takes the newer last).
 */
const SAVE_NETS = write<{
  storeId: string;
  testId: string;
  at: string;
  id: number | bigint;
  changes: string;
  drift: string;
}>(`
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
    mark_from = CASE WHEN ${MARK_FIRST} THEN excluded.mark_from ELSE mark_from END`);
const TOUCH_STATE = write<{ storeId: string; testId: string; resultsFetchedAt: string | null }>(
  `UPDATE user.test_state SET results_fetched_at = @resultsFetchedAt
   WHERE store_id = @storeId AND test_id = @testId`,
);

const FORGET_STORE = [
  write<{ storeId: string }>(`DELETE FROM user.test_state WHERE store_id = @storeId`),
  write<{ storeId: string }>(`DELETE FROM user.test_snapshots WHERE store_id = @storeId`),
  write<{ storeId: string }>(`DELETE FROM user.change_nets WHERE store_id = @storeId`),
  write<{ storeId: string }>(`DELETE FROM user.store_marks WHERE store_id = @storeId`),
];

/** Forgets what was seen of a store's tests (its key now reads another store): the next sync is a baseline. */
export function forgetStoreReview(db: Db, storeId: string): void {
  for (const forget of FORGET_STORE) forget.run(db, { storeId });
}

const DRIFT_JSON = JSON.stringify(DRIFT_FIELDS);

export function writeSnapshot(db: Db, s: SnapshotWrite): void {
  const { lastInsertRowid: id } = INSERT_SNAPSHOT.run(db, {
    storeId: s.storeId,
    testId: s.testId,
    at: s.at,
    baseline: s.baseline ? 1 : 0,
    drift: s.drift ? 1 : 0,
    probabilityToWin: s.probabilityToWin,
    state: s.state,
    changes: s.changes,
  });
  // A baseline changes nothing, and drift only moves what the view compares at the window's ends.
  if (!s.baseline && !s.drift)
    SAVE_NETS.run(db, {
      storeId: s.storeId,
      testId: s.testId,
      at: s.at,
      id,
      changes: s.changes,
      drift: DRIFT_JSON,
    });
  SAVE_STATE.run(db, {
    storeId: s.storeId,
    testId: s.testId,
    tracked: s.tracked,
    resultsFetchedAt: s.resultsFetchedAt,
    at: s.at,
    probabilityToWin: s.probabilityToWin,
  });
}

const REFRESH_ENDS = write<{ storeId: string }>(
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
     WHERE s.store_id = @storeId`,
);
const REFRESH_UNSET_MARKS = write<{ storeId: string }>(
  `UPDATE user.test_state AS s SET
       (mark_at, mark_probability) = (
         SELECT x.at, x.probability_to_win FROM user.test_snapshots x
         WHERE x.store_id = s.store_id AND x.test_id = s.test_id ORDER BY x.at, x.id LIMIT 1)
     WHERE s.store_id = @storeId AND s.mark_at IS NULL`,
);

/**
 * The review window's ends of every test of a store worked out again from its snapshots: after the
 * mark moved, or thinning took snapshots. The same rule as SAVE_STATE's, by index walks.
 */
export function refreshReviewEnds(db: Db, storeId: string): void {
  REFRESH_ENDS.run(db, { storeId });
  REFRESH_UNSET_MARKS.run(db, { storeId });
}

/** Results were fetched again but nothing material moved: remember not to read them again. */
export function touchTrackedState(
  db: Db,
  storeId: string,
  testId: string,
  resultsFetchedAt: string | null,
): void {
  TOUCH_STATE.run(db, { storeId, testId, resultsFetchedAt });
}

const REFRESH_NET_MARKS = write<{ storeId: string; reviewedAt: string }>(
  `UPDATE user.change_nets AS n SET (mark_at, mark_id, mark_from) = (
       SELECT x.at, x.id, j.value -> 0
       FROM user.test_snapshots x, json_each(x.changes) j
       WHERE x.store_id = n.store_id AND x.test_id = n.test_id AND x.drift = 0 AND x.baseline = 0
         AND json_valid(x.changes) AND j.key = n.field AND x.at > @reviewedAt
       ORDER BY x.at, x.id LIMIT 1)
     WHERE n.store_id = @storeId`,
);

/** The first change after the store's review mark of each field: worked out again when the mark moves. */
function refreshNetMarks(db: Db, storeId: string): void {
  REFRESH_NET_MARKS.run(db, { storeId, reviewedAt: storeMark(db, storeId).reviewedAt ?? '' });
}

// Per drift value: the index then gives each minimum at once.
const FIRST_SNAPSHOT_AT = read<{ at: string | null }, { storeId: string }>(
  `SELECT min(at) AS at FROM (
         SELECT min(at) AS at FROM user.test_snapshots WHERE store_id = @storeId AND drift = 0
         UNION ALL
         SELECT min(at) FROM user.test_snapshots WHERE store_id = @storeId AND drift = 1)`,
);

/** When the store was first synced with snapshots on: where an unreviewed store's changes start. */
export function firstSnapshotAt(db: Db, storeId: string): string | null {
  return FIRST_SNAPSHOT_AT.get(db, { storeId })?.at ?? null;
}

export type ProbabilityEnds = {
  testId: string;
  before: number | null;
  beforeKnown: number;
  now: number | null;
  nowAt: string | null;
};

const PROBABILITY_ENDS = read<
  ProbabilityEnds,
  { storeId: string; since: string; reviewedAt: string | null; movedMoreThan: number | null }
>(
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
);

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
  const reviewedAt = storeMark(db, storeId).reviewedAt;
  return PROBABILITY_ENDS.all(db, { storeId, since, reviewedAt, movedMoreThan });
}

export type StoreMark = {
  storeId: string;
  reviewedAt: string | null;
  compactedUntil: string | null;
};

const STORE_MARK = read<StoreMark, { storeId: string }>(
  `SELECT store_id AS storeId, reviewed_at AS reviewedAt, compacted_until AS compactedUntil
       FROM user.store_marks WHERE store_id = @storeId`,
);

export function storeMark(db: Db, storeId: string): StoreMark {
  return STORE_MARK.get(db, { storeId }) ?? { storeId, reviewedAt: null, compactedUntil: null };
}

const MARK_REVIEWED = write<{ storeId: string; at: string }>(
  `INSERT INTO user.store_marks (store_id, reviewed_at) VALUES (@storeId, @at)
       ON CONFLICT (store_id) DO UPDATE SET reviewed_at = excluded.reviewed_at`,
);

export function markReviewed(db: Db, storeId: string, at: string): void {
  db.transaction(() => {
    MARK_REVIEWED.run(db, { storeId, at });
    refreshReviewEnds(db, storeId);
    refreshNetMarks(db, storeId);
  }).immediate();
}

const MARK_COMPACTED = write<{ storeId: string; until: string }>(
  `INSERT INTO user.store_marks (store_id, compacted_until) VALUES (@storeId, @until)
     ON CONFLICT (store_id) DO UPDATE SET compacted_until = excluded.compacted_until`,
);

export function markCompacted(db: Db, storeId: string, until: string): void {
  MARK_COMPACTED.run(db, { storeId, until });
}

const THIN_DRIFT = write<{ storeId: string; from: string; until: string }>(
  `DELETE FROM user.test_snapshots WHERE id IN (
       SELECT id FROM (
         SELECT id,
                row_number() OVER (PARTITION BY test_id, strftime('%Y-%W', at) ORDER BY at DESC, id DESC) AS rank
         FROM user.test_snapshots
         WHERE store_id = @storeId AND drift = 1 AND at >= @from AND at < @until
       )
       WHERE rank > 1
     )`,
);

/**
 * Thins snapshots in [from, until) whose changes are only drift of the running figures (visitors,
 * lift, probability): one per test and week is kept (the week's last), so History keeps its curve
 * while a year of daily syncs stays bounded. Snapshots with any other change are never deleted.
 */
export function thinDriftSnapshots(db: Db, storeId: string, from: string, until: string): number {
  return THIN_DRIFT.run(db, { storeId, from, until }).changes;
}
