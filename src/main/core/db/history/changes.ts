// What the Changes view and the History tab read of the review memory: the net change of each field over
// a window, a test's snapshots, and the titles of the tests they name (the cache's, else the last seen).
import { read } from '../sql';
import type { Db } from '../types';

export type SnapshotRow = {
  id: number;
  storeId: string;
  testId: string;
  at: string;
  baseline: number;
  state: string;
  changes: string;
};

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

const CHANGE_NETS = read<
  NetRow & { known: number },
  { storeId: string; since: string; reviewedAt: string | null }
>(
  `SELECT test_id AS testId, field, last_to AS toJson, last_at AS at,
          first_at > @since OR @since IS @reviewedAt AS known,
          CASE WHEN first_at > @since THEN first_from ELSE mark_from END AS fromJson,
          CASE WHEN first_at > @since THEN first_at ELSE mark_at END AS startAt,
          CASE WHEN first_at > @since THEN first_id ELSE mark_id END AS startId
   FROM user.change_nets WHERE store_id = @storeId AND last_at > @since`,
);

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
  const rows = CHANGE_NETS.all(db, { storeId, since, reviewedAt });
  // In place: most rows are known, and a copy of each was most of this function's time.
  for (const row of rows)
    if (row.known !== 1)
      Object.assign(row, firstChangeAfter(db, storeId, row.testId, row.field, since));
  return rows;
}

const FIRST_CHANGE_AFTER = read<
  Pick<NetRow, 'fromJson' | 'startAt' | 'startId'>,
  { storeId: string; testId: string; since: string; field: string }
>(
  `SELECT j.value -> 0 AS fromJson, x.at AS startAt, x.id AS startId
   FROM user.test_snapshots x, json_each(x.changes) j
   WHERE x.store_id = @storeId AND x.test_id = @testId AND x.at > @since AND x.drift = 0 AND x.baseline = 0
     AND json_valid(x.changes) AND j.key = @field
   ORDER BY x.at, x.id LIMIT 1`,
);

/** A field's first change after `since` (a change after it exists): its from value, time and id. */
function firstChangeAfter(
  db: Db,
  storeId: string,
  testId: string,
  field: string,
  since: string,
): Pick<NetRow, 'fromJson' | 'startAt' | 'startId'> {
  const row = FIRST_CHANGE_AFTER.get(db, { storeId, testId, since, field });
  if (!row) throw new Error(`No change of ${field} of test ${testId} after ${since}`);
  return row;
}

const TEST_SNAPSHOTS = read<SnapshotRow, { storeId: string; testId: string }>(
  `SELECT id, store_id AS storeId, test_id AS testId, at, baseline, state, changes
   FROM user.test_snapshots WHERE store_id = @storeId AND test_id = @testId ORDER BY id`,
);

/** Every snapshot of one test, oldest first. */
export function testSnapshots(db: Db, storeId: string, testId: string): SnapshotRow[] {
  return TEST_SNAPSHOTS.all(db, { storeId, testId });
}

// One walk of the covering index (cache migration 17), not a lookup of each wide row.
const CACHED_TITLES = read<{ id: string; title: string }, { storeId: string }>(
  `SELECT id, title FROM tests INDEXED BY tests_titles WHERE store_id = @storeId`,
);
const RECORDED_TITLE = read<{ title: string | null }, { storeId: string; testId: string }>(
  `SELECT json_extract(state, '$.meta.title') AS title FROM user.test_state
   WHERE store_id = @storeId AND test_id = @testId`,
);

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
  const cached = new Map<string, string>();
  for (const row of CACHED_TITLES.all(db, { storeId })) cached.set(row.id, row.title);
  const titles = new Map<string, string>();
  for (const testId of testIds) {
    const title = cached.get(testId) ?? RECORDED_TITLE.get(db, { storeId, testId })?.title ?? null;
    if (title !== null) titles.set(testId, title);
  }
  return titles;
}
