// Writes of tests: the one writer of a test's row (the sync's and the local copy's), a listed page
// upserted, seen-in-run marks, removals.
import type { Test } from '#shared/api/index';
import { clearSetAside } from './set-aside';
import { statement } from '../statements';
import type { Db } from '../types';
import { storableJson, toFlag } from '../values';

/** One page of GET /tests as a sync writes it. */
export interface TestPageWrite {
  storeId: string;
  tests: readonly Test[];
  /** The sync run that listed them: tests it does not see are marked removed after a complete listing. */
  runId: string;
  syncedAt: string;
}

/**
 * Upserts a page of tests, marks them seen by the run and not removed, and clears any set-aside
 * record they left. A test whose raw JSON is unchanged is only marked seen, which is what keeps a
 * re-sync where nothing changed cheap.
 */
export function upsertTests(db: Db, page: TestPageWrite): UnstorableTest[] {
  const { storeId, runId, syncedAt } = page;
  const unstorable: UnstorableTest[] = [];
  db.transaction(() => {
    for (const test of page.tests) {
      // A record JSON cannot write (nested thousands deep, JSON.stringify overflows the stack) is
      // returned to be set aside like an invalid one; the rest of the page is kept.
      const rawJson = storableJson(test);
      if (rawJson === null) {
        unstorable.push({ id: test.id, error: UNSTORABLE_REASON });
        continue;
      }
      const cached = statement<{ seq: number; rawJson: string | null }>(db, FIND_CACHED_TEST).get(
        storeId,
        test.id,
      );
      if (cached && cached.rawJson === rawJson) {
        statement(db, MARK_TEST_SEEN).run(runId, syncedAt, cached.seq);
      } else {
        // A test new to the cache has no parts to clear yet.
        const seen = { runId, syncedAt };
        if (!writeTestRow(db, { storeId, test, rawJson, seen, hadParts: cached !== undefined }))
          throw new Error(`Upserting test ${test.id} returned no row`);
      }
      clearSetAside(db, storeId, 'test', test.id);
    }
  }).immediate();
  return unstorable;
}

/** A listed test the cache could not take, to be set aside with its reason. */
export interface UnstorableTest {
  id: string;
  error: string;
}

export const UNSTORABLE_REASON =
  'The record cannot be stored: it is nested too deeply to be written as JSON.';

const FIND_CACHED_TEST = `
  SELECT t.seq, r.raw_json AS rawJson
  FROM tests t LEFT JOIN tests_raw r ON r.seq = t.seq
  WHERE t.store_id = ? AND t.id = ?`;
const MARK_TEST_SEEN = `UPDATE tests SET last_seen_run = ?, synced_at = ?, removed = 0 WHERE seq = ?`;

/**
 * A test row's typed columns, each from the test record: the one mapping of a record to its row, for
 * the sync's upsert and the local copy's rewrite alike (each binds a column's value by its own name).
 */
const TEST_COLUMNS: Readonly<Record<string, (test: Test) => string | number | null>> = {
  title: (test) => test.title,
  status: (test) => test.status,
  stage: (test) => test.stage,
  goal: (test) => test.goal,
  device: (test) => test.device,
  visitor_option: (test) => test.visitorOption,
  hypothesis: (test) => test.hypothesisDescription,
  handle: (test) => test.handle,
  campaign_id: (test) => test.campaign?.id ?? null,
  campaign_name: (test) => test.campaign?.name ?? null,
  start_at: (test) => test.startAt,
  end_at: (test) => test.endAt,
  created_at: (test) => test.createdAt,
  updated_at: (test) => test.updatedAt,
  priority: (test) => test.priority,
  surface_area: (test) => test.surfaceArea,
  impact: (test) => test.impact,
  effort: (test) => test.effort,
  implemented: (test) => toFlag(test.implemented),
  tag_names: (test) => JSON.stringify(test.tags.map((tag) => tag.name)),
};
const COLUMN_NAMES = Object.keys(TEST_COLUMNS);

// An upsert, never REPLACE: replacing would delete the row and cascade away its results.
const UPSERT_TEST = `
  INSERT INTO tests (store_id, id, ${COLUMN_NAMES.join(', ')}, synced_at, last_seen_run, removed)
  VALUES (@storeId, @id, ${COLUMN_NAMES.map((c) => `@${c}`).join(', ')}, @syncedAt, @runId, 0)
  ON CONFLICT (store_id, id) DO UPDATE SET
    ${COLUMN_NAMES.map((c) => `${c} = excluded.${c}`).join(', ')},
    synced_at = excluded.synced_at, last_seen_run = excluded.last_seen_run, removed = 0
  RETURNING seq`;
// The local copy rewrites a cached row only, leaving what the sync bookkeeps (seen-in-run, synced_at).
const UPDATE_TEST = `
  UPDATE tests SET ${COLUMN_NAMES.map((c) => `${c} = @${c}`).join(', ')}
  WHERE store_id = @storeId AND id = @id
  RETURNING seq`;
const SAVE_TEST_RAW = `INSERT OR REPLACE INTO tests_raw (seq, raw_json) VALUES (?, ?)`;

/** The rows that hang off a test and are rewritten with it. */
const DELETE_TEST_PARTS = ['test_tags', 'test_custom_audiences'].map(
  (table) => `DELETE FROM ${table} WHERE store_id = ? AND test_id = ?`,
);
const INSERT_TEST_TAG = `INSERT OR REPLACE INTO test_tags (store_id, test_id, tag_id, name) VALUES (?, ?, ?, ?)`;
const UPSERT_TAG = `
  INSERT INTO tags (store_id, id, name) VALUES (?, ?, ?)
  ON CONFLICT (store_id, id) DO UPDATE SET name = excluded.name`;
const INSERT_TEST_CUSTOM_AUDIENCE = `
  INSERT OR REPLACE INTO test_custom_audiences (store_id, test_id, audience_id, name) VALUES (?, ?, ?, ?)`;

export interface TestRowWrite {
  storeId: string;
  test: Test;
  /** The record's JSON for tests_raw. */
  rawJson: string;
  /** Set by a sync: the row is upserted and marked seen by the run. Without it (the local copy), only a
   * cached row is rewritten and what the sync bookkeeps is left alone. */
  seen?: { runId: string; syncedAt: string };
  /** Whether the test may already have tags and audiences, which are then cleared first. */
  hadParts: boolean;
}

/**
 * Writes a test's row from its record: the typed columns, the raw JSON, its tags (known to the store
 * from then on) and custom audiences. The one writer of a test row, for the sync's ingest and the
 * local copy's rewrite. False when there was no row to rewrite (a local copy of a test not cached).
 */
export function writeTestRow(db: Db, write: TestRowWrite): boolean {
  const { storeId, test, rawJson, seen, hadParts } = write;
  const columns = Object.fromEntries(
    Object.entries(TEST_COLUMNS).map(([column, of]) => [column, of(test)]),
  );
  const written = seen
    ? statement<{ seq: number }>(db, UPSERT_TEST).get({ storeId, id: test.id, ...columns, ...seen })
    : statement<{ seq: number }>(db, UPDATE_TEST).get({ storeId, id: test.id, ...columns });
  if (!written) return false;
  statement(db, SAVE_TEST_RAW).run(written.seq, rawJson);
  if (hadParts) for (const sql of DELETE_TEST_PARTS) statement(db, sql).run(storeId, test.id);
  for (const tag of test.tags) {
    statement(db, INSERT_TEST_TAG).run(storeId, test.id, tag.id, tag.name);
    statement(db, UPSERT_TAG).run(storeId, tag.id, tag.name);
  }
  for (const audience of test.customAudiences) {
    statement(db, INSERT_TEST_CUSTOM_AUDIENCE).run(storeId, test.id, audience.id, audience.name);
  }
  return true;
}

/**
 * Records that the run listed these tests although they failed validation (they were set
 * aside): the cached version stays, and the test counts as seen, so it is not marked removed.
 */
export function markSeenInRun(
  db: Db,
  seen: { storeId: string; testIds: readonly string[]; runId: string },
): void {
  if (seen.testIds.length === 0) return;
  const ids = JSON.stringify(seen.testIds);
  db.transaction(() => {
    statement(db, MARK_TESTS_SEEN).run(seen.runId, seen.storeId, ids);
    statement(db, MARK_SET_ASIDE_TESTS_SEEN).run(seen.runId, seen.storeId, ids);
  }).immediate();
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
  return db
    .transaction(() => {
      const marked = statement(db, MARK_MISSING_REMOVED).run(
        storeId,
        runId,
        storeId,
        runId,
      ).changes;
      statement(db, FORGET_STALE_SET_ASIDE_TESTS).run(storeId, runId);
      return marked;
    })
    .immediate();
}

const MARK_MISSING_REMOVED = `
  UPDATE tests SET removed = 1
  WHERE store_id = ? AND removed = 0 AND last_seen_run IS NOT ?
    AND id NOT IN (SELECT record_id FROM set_aside WHERE store_id = ? AND resource = 'test' AND run_id = ?)`;
const FORGET_STALE_SET_ASIDE_TESTS = `
  DELETE FROM set_aside WHERE store_id = ? AND resource = 'test' AND run_id IS NOT NULL AND run_id <> ?`;
