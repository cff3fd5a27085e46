// Writes of tests: the one writer of a test's row (the sync's and the local copy's), a listed page
// upserted, seen-in-run marks, removals.
import type { Test } from '#shared/api/index';
import { clearSetAside } from './set-aside';
import { read, write } from '../sql';
import type { Db } from '../types';
import { packText, storableJson, toFlag } from '../values';

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
      const cached = FIND_CACHED_TEST.get(db, { storeId, id: test.id });
      if (cached && cached.rawJson === rawJson) {
        MARK_TEST_SEEN.run(db, { runId, syncedAt, seq: cached.seq });
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

type StoreTest = { storeId: string; id: string };
type RunMark = { runId: string; storeId: string };

const FIND_CACHED_TEST = read<{ seq: number; rawJson: string | null }, StoreTest>(`
  SELECT t.seq, r.raw_json AS rawJson
  FROM tests t LEFT JOIN tests_raw r ON r.seq = t.seq
  WHERE t.store_id = @storeId AND t.id = @id`);
const MARK_TEST_SEEN = write<{ runId: string; syncedAt: string; seq: number }>(
  `UPDATE tests SET last_seen_run = @runId, synced_at = @syncedAt, removed = 0 WHERE seq = @seq`,
);

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
/** The typed columns' values, bound by their column names. */
type TestColumnValues = { readonly [column: string]: string | number | null };

// An upsert, never REPLACE: replacing would delete the row and cascade away its results.
const UPSERT_TEST = read<
  { seq: number },
  StoreTest & TestColumnValues & { syncedAt: string; runId: string }
>(`
  INSERT INTO tests (store_id, id, ${COLUMN_NAMES.join(', ')}, synced_at, last_seen_run, removed)
  VALUES (@storeId, @id, ${COLUMN_NAMES.map((c) => `@${c}`).join(', ')}, @syncedAt, @runId, 0)
  ON CONFLICT (store_id, id) DO UPDATE SET
    ${COLUMN_NAMES.map((c) => `${c} = excluded.${c}`).join(', ')},
    synced_at = excluded.synced_at, last_seen_run = excluded.last_seen_run, removed = 0
  RETURNING seq`);
// The local copy rewrites a cached row only, leaving what the sync bookkeeps (seen-in-run, synced_at).
const UPDATE_TEST = read<{ seq: number }, StoreTest & TestColumnValues>(`
  UPDATE tests SET ${COLUMN_NAMES.map((c) => `${c} = @${c}`).join(', ')}
  WHERE store_id = @storeId AND id = @id
  RETURNING seq`);
// Packed here rather than by tests_raw's trigger (cache migration 22): the same bytes, without a
// trigger's program run for each test a listing writes.
const SAVE_TEST_RAW = write<{ seq: number; rawPacked: Uint8Array }>(
  `INSERT OR REPLACE INTO tests_raw_packed (seq, raw_packed) VALUES (@seq, @rawPacked)`,
);

/** The rows that hang off a test and are rewritten with it. */
const DELETE_TEST_PARTS = ['test_tags', 'test_custom_audiences'].map((table) =>
  write<{ storeId: string; testId: string }>(
    `DELETE FROM ${table} WHERE store_id = @storeId AND test_id = @testId`,
  ),
);
type NamedPart = { storeId: string; testId: string; id: string; name: string };
const INSERT_TEST_TAG = write<NamedPart>(
  `INSERT OR REPLACE INTO test_tags (store_id, test_id, tag_id, name) VALUES (@storeId, @testId, @id, @name)`,
);
const UPSERT_TAG = write<{ storeId: string; id: string; name: string }>(`
  INSERT INTO tags (store_id, id, name) VALUES (@storeId, @id, @name)
  ON CONFLICT (store_id, id) DO UPDATE SET name = excluded.name`);
const INSERT_TEST_CUSTOM_AUDIENCE = write<NamedPart>(`
  INSERT OR REPLACE INTO test_custom_audiences (store_id, test_id, audience_id, name) VALUES (@storeId, @testId, @id, @name)`);

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
  const columns: TestColumnValues = Object.fromEntries(
    Object.entries(TEST_COLUMNS).map(([column, of]) => [column, of(test)]),
  );
  const written = seen
    ? UPSERT_TEST.get(db, { storeId, id: test.id, ...columns, ...seen })
    : UPDATE_TEST.get(db, { storeId, id: test.id, ...columns });
  if (!written) return false;
  SAVE_TEST_RAW.run(db, { seq: written.seq, rawPacked: packText(rawJson) });
  const testId = test.id;
  if (hadParts) for (const parts of DELETE_TEST_PARTS) parts.run(db, { storeId, testId });
  for (const tag of test.tags) {
    INSERT_TEST_TAG.run(db, { storeId, testId, id: tag.id, name: tag.name });
    UPSERT_TAG.run(db, { storeId, id: tag.id, name: tag.name });
  }
  for (const audience of test.customAudiences) {
    INSERT_TEST_CUSTOM_AUDIENCE.run(db, { storeId, testId, id: audience.id, name: audience.name });
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
    MARK_TESTS_SEEN.run(db, { runId: seen.runId, storeId: seen.storeId, ids });
    MARK_SET_ASIDE_TESTS_SEEN.run(db, { runId: seen.runId, storeId: seen.storeId, ids });
  }).immediate();
}

/** `ids`: the tests' ids as a JSON array. */
const MARK_TESTS_SEEN = write<RunMark & { ids: string }>(`
  UPDATE tests SET last_seen_run = @runId, removed = 0
  WHERE store_id = @storeId AND id IN (SELECT value FROM json_each(@ids))`);
const MARK_SET_ASIDE_TESTS_SEEN = write<RunMark & { ids: string }>(`
  UPDATE set_aside SET run_id = @runId
  WHERE store_id = @storeId AND resource = 'test' AND record_id IN (SELECT value FROM json_each(@ids))`);

/**
 * How many distinct tests the run has seen: cached ones it listed, plus set-aside ones
 * (marked by markSeenInRun or set aside with the runId) that are not cached.
 * Compared with the listing's totalCount to tell whether the listing was complete.
 */
export function countSeenInRun(db: Db, storeId: string, runId: string): number {
  return COUNT_SEEN_IN_RUN.get(db, { storeId, runId })?.n ?? 0;
}

const COUNT_SEEN_IN_RUN = read<{ n: number }, RunMark>(`
  SELECT
    (SELECT count(*) FROM tests WHERE store_id = @storeId AND last_seen_run = @runId)
    + (SELECT count(*) FROM set_aside a
       WHERE a.store_id = @storeId AND a.resource = 'test' AND a.record_id <> '' AND a.run_id = @runId
         AND NOT EXISTS (SELECT 1 FROM tests t
                         WHERE t.store_id = a.store_id AND t.id = a.record_id AND t.last_seen_run = @runId)) AS n`);

/**
 * After a COMPLETE listing: tests the run did not see are marked removed (kept, not
 * deleted, so their history stays readable). Set-aside tests of earlier runs that this
 * listing no longer holds are forgotten; one set aside without a run id is kept, since
 * nothing tells which run saw it. Returns how many tests were newly marked removed.
 */
export function markMissingRemoved(db: Db, storeId: string, runId: string): number {
  return db
    .transaction(() => {
      const marked = MARK_MISSING_REMOVED.run(db, { storeId, runId }).changes;
      FORGET_STALE_SET_ASIDE_TESTS.run(db, { storeId, runId });
      return marked;
    })
    .immediate();
}

const MARK_MISSING_REMOVED = write<RunMark>(`
  UPDATE tests SET removed = 1
  WHERE store_id = @storeId AND removed = 0 AND last_seen_run IS NOT @runId
    AND id NOT IN (SELECT record_id FROM set_aside WHERE store_id = @storeId AND resource = 'test' AND run_id = @runId)`);
const FORGET_STALE_SET_ASIDE_TESTS = write<RunMark>(`
  DELETE FROM set_aside WHERE store_id = @storeId AND resource = 'test' AND run_id IS NOT NULL AND run_id <> @runId`);
