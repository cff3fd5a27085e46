// What a client report shows, read from the cache: the tests of a store (or of every store) that ran
// or ended in a period, each with its results, its call, the consultant's note and the store's dated
// annotations. Nothing is fetched: a report is written offline from what was synced.
import { Test, TestResults } from '#shared/api/index';
import { problem } from '#shared/problem';
import { listAnnotations, noteFor } from '../../db/user/notes';
import { readDecision } from '../../db/cache/decisions';
import type { Db } from '../../db/types';
import { clientReportRows, type ClientReportRow } from '../../db/cache/report-rows';
import { storeNames } from '../../db/cache/stores';
import { countCachedTests } from '../../db/cache/reads';
import { unpackJson } from '../../db/values';
import { signOffFor, storeSignOffs, type StoreSignOffs } from '../../team/sign-offs';
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

type Row = ClientReportRow;

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
  const stores = storeNames(db, scope.storeId);
  if (scope.storeId !== null && stores.length === 0) {
    throw problem('notFound', 404, 'Unknown store', `There is no store ${scope.storeId}.`);
  }
  const rows = clientReportRows(db, scope);
  if (scope.testId !== null && rows.length === 0) {
    throw problem(
      'notFound',
      404,
      'Unknown test',
      `The store has no test ${scope.testId} in the cache.`,
    );
  }
  const annotations = new Map<string, { day: string; label: string }[]>();
  // Each store's sign-offs, read once (null: the store is not shared, and its report says nothing of them).
  const signOffs = new Map<string, StoreSignOffs | null>();
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
    if (!signOffs.has(row.storeId)) signOffs.set(row.storeId, storeSignOffs(db, row.storeId));
    const shared = signOffs.get(row.storeId) ?? null;
    const decision = readDecision(db, row.seq);
    sections.get(row.storeId)?.tests.push({
      storeName: row.storeName,
      test,
      results: readResults(row),
      decision,
      note: noteFor(db, row.storeId, row.testId),
      annotations: annotations.get(row.storeId) ?? [],
      figuresAsOf: row.fetchedAt ?? row.syncedAt,
      ...(shared === null
        ? {}
        : { signOff: signOffFor(shared, row.testId, decision?.call ?? null) }),
    });
  }
  if (scope.testId !== null) return [...sections.values()].filter((s) => s.tests.length > 0);
  return [...sections.values()];
}

/** Whether any store in scope was ever synced (a report of nothing synced is refused, saying why). */
export function assertSynced(db: Db, storeId: string | null): void {
  if (countCachedTests(db, storeId) === 0) {
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
