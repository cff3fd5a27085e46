// Writes of tests: a listed page upserted with its tags and audiences, seen-in-run marks, removals.
import type { Test } from '../../../shared/api';
import { clearSetAside } from './set-aside';
import { statement } from './statements';
import type { Db } from './types';
import { storableJson, toFlag } from './values';

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
        writeTest(db, { storeId, test, rawJson, runId, syncedAt, hadParts: cached !== undefined });
      }
      clearSetAside(db, storeId, 'test', test.id);
    }
  })();
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
const DELETE_TEST_PARTS = ['test_tags', 'test_custom_audiences'].map(
  (table) => `DELETE FROM ${table} WHERE store_id = ? AND test_id = ?`,
);
const INSERT_TEST_TAG = `INSERT OR REPLACE INTO test_tags (store_id, test_id, tag_id, name) VALUES (?, ?, ?, ?)`;
const UPSERT_TAG = `
  INSERT INTO tags (store_id, id, name) VALUES (?, ?, ?)
  ON CONFLICT (store_id, id) DO UPDATE SET name = excluded.name`;
const INSERT_TEST_CUSTOM_AUDIENCE = `
  INSERT OR REPLACE INTO test_custom_audiences (store_id, test_id, audience_id, name) VALUES (?, ?, ?, ?)`;

interface TestWrite {
  storeId: string;
  test: Test;
  rawJson: string;
  runId: string;
  syncedAt: string;
  /** Whether the test was cached before, so its tags and audiences must be cleared first. */
  hadParts: boolean;
}

function writeTest(db: Db, { storeId, test, rawJson, runId, syncedAt, hadParts }: TestWrite): void {
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
  for (const tag of test.tags) {
    statement(db, INSERT_TEST_TAG).run(storeId, test.id, tag.id, tag.name);
    statement(db, UPSERT_TAG).run(storeId, tag.id, tag.name);
  }
  for (const audience of test.customAudiences) {
    statement(db, INSERT_TEST_CUSTOM_AUDIENCE).run(storeId, test.id, audience.id, audience.name);
  }
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
