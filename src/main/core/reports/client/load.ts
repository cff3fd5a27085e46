// What a client report shows, read from the cache: the tests of a store (or of every store) that ran
// or ended in a period, each with its results, its call, the consultant's note and the store's dated
// annotations. Nothing is fetched: a report is written offline from what was synced.
import { Test, TestResults } from '#shared/api/index';
import { problem } from '#shared/problem';
import { listAnnotations, noteFor } from '../../db/user/notes';
import { readDecision } from '../../db/cache/decisions';
import type { Db } from '../../db/types';
import { statement } from '../../db/statements';
import { unpackJson } from '../../db/values';
import type { ClientTest, StoreSection } from './render';

export type ClientReportScope = {
  /** One store, or every store (null). */
  storeId: string | null;
  /** One test of that store, or the store's period. */
  testId: string | null;
  /** The period, 'YYYY-MM-DD' both ends included: tests running in it or ended in it. */
  since: string;
  until: string;
};

type Row = {
  seq: number;
  storeId: string;
  storeName: string;
  testId: string;
  syncedAt: string;
  rawJson: string;
  packed: Uint8Array | null;
  fetchedAt: string | null;
};

const SELECT = `
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
  ORDER BY s.position, s.id, t.start_at, t.title COLLATE NOCASE, t.seq`;

const STORES = `SELECT id, name FROM stores WHERE @storeId IS NULL OR id = @storeId ORDER BY position, id`;

function readTest(row: Row): Test | null {
  try {
    const parsed = Test.safeParse(JSON.parse(row.rawJson));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function readResults(row: Row): TestResults | null {
  if (row.packed === null) return null;
  try {
    const parsed = TestResults.safeParse(JSON.parse(unpackJson(row.packed)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The report's tests grouped by store (every store in scope has a section, tests or not). */
export function loadClientReport(db: Db, scope: ClientReportScope): StoreSection[] {
  const stores = statement<{ id: string; name: string }>(db, STORES).all({
    storeId: scope.storeId,
  });
  if (scope.storeId !== null && stores.length === 0) {
    throw problem('notFound', 404, 'Unknown store', `There is no store ${scope.storeId}.`);
  }
  const rows = statement<Row>(db, SELECT).all({ ...scope });
  if (scope.testId !== null && rows.length === 0) {
    throw problem(
      'notFound',
      404,
      'Unknown test',
      `The store has no test ${scope.testId} in the cache.`,
    );
  }
  const annotations = new Map<string, { day: string; label: string }[]>();
  const sections = new Map<string, StoreSection & { tests: ClientTest[] }>();
  for (const store of stores)
    sections.set(store.id, { storeId: store.id, storeName: store.name, tests: [] });
  for (const row of rows) {
    const test = readTest(row);
    if (test === null) continue;
    if (!annotations.has(row.storeId))
      annotations.set(
        row.storeId,
        listAnnotations(db, row.storeId).map((a) => ({ day: a.day, label: a.label })),
      );
    sections.get(row.storeId)?.tests.push({
      storeName: row.storeName,
      test,
      results: readResults(row),
      decision: readDecision(db, row.seq),
      note: noteFor(db, row.storeId, row.testId),
      annotations: annotations.get(row.storeId) ?? [],
      figuresAsOf: row.fetchedAt ?? row.syncedAt,
    });
  }
  if (scope.testId !== null) return [...sections.values()].filter((s) => s.tests.length > 0);
  return [...sections.values()];
}

/** Whether any store in scope was ever synced (a report of nothing synced is refused, saying why). */
export function assertSynced(db: Db, storeId: string | null): void {
  const row = statement<{ n: number }>(
    db,
    `SELECT count(*) AS n FROM tests WHERE @storeId IS NULL OR store_id = @storeId`,
  ).get({ storeId });
  if ((row?.n ?? 0) === 0) {
    throw problem(
      'conflict',
      409,
      'Nothing synced yet',
      storeId === null
        ? 'No store has been synced yet: sync first, then write the report.'
        : 'This store has not been synced yet: sync it first, then write the report.',
    );
  }
}
