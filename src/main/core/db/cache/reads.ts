// Reads for the bridge: test detail, results, campaigns, audiences, tags and set-aside records, in the contract's shapes.
import { z } from 'zod';
import { Campaign, CustomAudience, Test, TestResults } from '#shared/api/index';
import type {
  AudienceRow,
  CampaignRow,
  ResultsDetail,
  SetAsideRecord,
  SyncIssuesPage,
  TestDetail,
} from '#shared/contract/index';
import { SetAsideKind } from '#shared/contract/index';
import { problem } from '#shared/problem';
import { readDecision } from './decisions';
import { read } from '../sql';
import type { Db, SetAsideKind as Kind, TagRecord } from '../types';
import { unpackJson } from '../values';

export { listTests, testFacets } from './test-list';

type StoreTest = { storeId: string; testId: string };
/** One statement's scope: a store, or every store (null). */
type Scope = { storeId: string | null };

const SELECT_TEST_DETAIL = read<
  {
    seq: number;
    rawJson: string;
    removed: number;
    syncedAt: string;
    storeName: string;
    resultsSyncedAt: string | null;
  },
  StoreTest
>(`
  SELECT t.seq, raw.raw_json AS rawJson, t.removed, t.synced_at AS syncedAt, s.name AS storeName,
         r.fetched_at AS resultsSyncedAt
  FROM tests t
  JOIN tests_raw raw ON raw.seq = t.seq
  JOIN stores s ON s.id = t.store_id
  LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  WHERE t.store_id = @storeId AND t.id = @testId`);

/** The test as the server last sent it (rebuilt from its raw JSON), or null when it is not cached. */
export function getTestDetail(db: Db, storeId: string, testId: string): TestDetail | null {
  const row = SELECT_TEST_DETAIL.get(db, { storeId, testId });
  if (!row) return null;
  return {
    storeId,
    storeName: row.storeName,
    test: readCached(Test, row.rawJson, `Test ${testId}`),
    removed: row.removed === 1,
    syncedAt: row.syncedAt,
    resultsSyncedAt: row.resultsSyncedAt,
    decision: readDecision(db, row.seq),
  };
}

const SELECT_RESULTS = read<{ packed: Uint8Array; fetchedAt: string }, StoreTest>(`
  SELECT raw.raw_packed AS packed, r.fetched_at AS fetchedAt
  FROM results r JOIN results_raw raw ON raw.store_id = r.store_id AND raw.test_id = r.test_id
  WHERE r.store_id = @storeId AND r.test_id = @testId`);

/** The cached results of a test, or null when none were fetched. */
export function getResults(db: Db, storeId: string, testId: string): ResultsDetail | null {
  const row = SELECT_RESULTS.get(db, { storeId, testId });
  if (!row) return null;
  return {
    storeId,
    testId,
    results: readCached(TestResults, unpackJson(row.packed), `Results of test ${testId}`),
    fetchedAt: row.fetchedAt,
  };
}

// The lists below are small (tens to hundreds per store): `? IS NULL OR` keeps one statement for both scopes.

const SELECT_CAMPAIGNS = read<
  { storeId: string; storeName: string; id: string; rawJson: string },
  Scope
>(`
  SELECT c.store_id AS storeId, s.name AS storeName, c.id, c.raw_json AS rawJson
  FROM campaigns c JOIN stores s ON s.id = c.store_id
  WHERE @storeId IS NULL OR c.store_id = @storeId
  ORDER BY s.position, s.id, c.name COLLATE NOCASE, c.id`);

/** Active campaigns of one store (or of all stores when storeId is null). */
export function listCampaigns(db: Db, storeId: string | null): CampaignRow[] {
  const rows = SELECT_CAMPAIGNS.all(db, { storeId });
  return rows.map((row) => ({
    storeId: row.storeId,
    storeName: row.storeName,
    campaign: readCached(Campaign, row.rawJson, `Campaign ${row.id}`),
  }));
}

// testCount counts the cached tests (not removed) that target the audience.
const SELECT_AUDIENCES = read<
  { storeId: string; storeName: string; id: string; rawJson: string; testCount: number },
  Scope
>(`
  SELECT a.store_id AS storeId, s.name AS storeName, a.id, a.raw_json AS rawJson, coalesce(used.n, 0) AS testCount
  FROM custom_audiences a
  JOIN stores s ON s.id = a.store_id
  LEFT JOIN (
    SELECT ta.store_id, ta.audience_id, count(*) AS n
    FROM test_custom_audiences ta
    JOIN tests t ON t.store_id = ta.store_id AND t.id = ta.test_id AND t.removed = 0
    WHERE @storeId IS NULL OR ta.store_id = @storeId
    GROUP BY ta.store_id, ta.audience_id
  ) used ON used.store_id = a.store_id AND used.audience_id = a.id
  WHERE @storeId IS NULL OR a.store_id = @storeId
  ORDER BY s.position, s.id, a.name COLLATE NOCASE, a.id`);

/** Custom audiences of one store (or all), each with how many cached tests use it. */
export function listAudiences(db: Db, storeId: string | null): AudienceRow[] {
  const rows = SELECT_AUDIENCES.all(db, { storeId });
  return rows.map((row) => ({
    storeId: row.storeId,
    storeName: row.storeName,
    audience: readCached(CustomAudience, row.rawJson, `Custom audience ${row.id}`),
    testCount: row.testCount,
  }));
}

/** A set-aside record without the fields Sync issues shows beside it. */
export type SetAsideRow = Pick<
  SetAsideRecord,
  'storeId' | 'resource' | 'recordId' | 'error' | 'seenAt'
>;

const SELECT_SET_ASIDE = read<SetAsideRow, Scope>(`
  SELECT store_id AS storeId, resource, record_id AS recordId, error, seen_at AS seenAt
  FROM set_aside
  WHERE @storeId IS NULL OR store_id = @storeId
  ORDER BY seen_at DESC, store_id, resource, record_id`);

/** Records a sync could not accept, newest first (every row: for tests and tools, not the UI). */
export function listSetAside(db: Db, storeId: string | null): SetAsideRow[] {
  return SELECT_SET_ASIDE.all(db, { storeId }).map((row) => ({
    ...row,
    recordId: row.recordId === '' ? null : row.recordId,
  }));
}

// One page in (seen_at DESC, store_id, resource, record_id) order, after the cursor's row. The title
// comes from the cached test (a results request failed) or from the record itself when it is valid JSON.
const PAGE_SET_ASIDE = read<
  Omit<SetAsideRecord, 'kind'> & { kind: string },
  Scope & {
    kind: Kind | null;
    seenAt: string | null;
    afterStore: string;
    afterResource: string;
    afterRecord: string;
    limit: number;
  }
>(`
  SELECT a.store_id AS storeId, a.resource, a.record_id AS recordId, a.kind, a.status, a.error,
         a.seen_at AS seenAt,
         coalesce(
           t.title,
           CASE WHEN length(a.raw_json) < 1000000 AND json_valid(a.raw_json)
                THEN coalesce(
                  CASE WHEN json_type(a.raw_json, '$.title') = 'text' THEN json_extract(a.raw_json, '$.title') END,
                  CASE WHEN json_type(a.raw_json, '$.name') = 'text' THEN json_extract(a.raw_json, '$.name') END)
           END) AS title
  FROM set_aside a
  LEFT JOIN tests t ON a.resource IN ('results', 'test') AND t.store_id = a.store_id AND t.id = a.record_id
  WHERE (@storeId IS NULL OR a.store_id = @storeId)
    AND (@kind IS NULL OR a.kind = @kind)
    AND (@seenAt IS NULL OR a.seen_at < @seenAt
         OR (a.seen_at = @seenAt AND (a.store_id, a.resource, a.record_id) > (@afterStore, @afterResource, @afterRecord)))
  ORDER BY a.seen_at DESC, a.store_id, a.resource, a.record_id
  LIMIT @limit`);

const COUNT_SET_ASIDE = read<{ kind: string; n: number }, Scope>(`
  SELECT kind, count(*) AS n FROM set_aside
  WHERE @storeId IS NULL OR store_id = @storeId
  GROUP BY kind`);

const IssueCursor = z.tuple([z.string(), z.string(), z.string(), z.string()]);

function issueCursor(cursor: string | null): z.infer<typeof IssueCursor> | null {
  if (cursor === null) return null;
  try {
    return IssueCursor.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw problem(
      'validation',
      400,
      'Invalid cursor',
      'The cursor of Sync issues is not one this version wrote.',
    );
  }
}

/**
 * One page of set-aside records, newest first, with the totals per kind: however many rows there are,
 * one call reads one page (keyset, not offset) and a count.
 */
export function pageSetAside(
  db: Db,
  input: { storeId: string | null; kind: Kind | null; cursor: string | null; limit: number },
): SyncIssuesPage {
  const after = issueCursor(input.cursor);
  const rows = PAGE_SET_ASIDE.all(db, {
    storeId: input.storeId,
    kind: input.kind,
    seenAt: after?.[0] ?? null,
    afterStore: after?.[1] ?? '',
    afterResource: after?.[2] ?? '',
    afterRecord: after?.[3] ?? '',
    limit: input.limit + 1,
  });
  const more = rows.length > input.limit;
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const byKind = { transient: 0, invalid: 0, refused: 0 };
  for (const row of COUNT_SET_ASIDE.all(db, { storeId: input.storeId })) {
    const kind = SetAsideKind.safeParse(row.kind);
    if (kind.success) byKind[kind.data] += row.n;
  }
  return {
    rows: page.map((row) => ({
      ...row,
      kind: SetAsideKind.safeParse(row.kind).data ?? 'invalid',
      recordId: row.recordId === '' ? null : row.recordId,
    })),
    nextCursor:
      more && last
        ? Buffer.from(
            JSON.stringify([last.seenAt, last.storeId, last.resource, last.recordId ?? '']),
          ).toString('base64url')
        : null,
    total: byKind.transient + byKind.invalid + byKind.refused,
    byKind,
  };
}

const SELECT_TAGS = read<TagRecord, Scope>(`
  SELECT g.store_id AS storeId, g.id, g.name, count(t.id) AS testCount
  FROM tags g
  LEFT JOIN test_tags tt ON tt.store_id = g.store_id AND tt.tag_id = g.id
  LEFT JOIN tests t ON t.store_id = tt.store_id AND t.id = tt.test_id AND t.removed = 0
  WHERE @storeId IS NULL OR g.store_id = @storeId
  GROUP BY g.store_id, g.id
  ORDER BY g.name COLLATE NOCASE, g.store_id, g.id`);

/** Tags collected from the cached tests, with how many (not removed) tests carry each. */
export function listTags(db: Db, storeId: string | null): TagRecord[] {
  return SELECT_TAGS.all(db, { storeId });
}

/**
 * Rebuilds a record from its raw JSON with the API schema, so fields the schema does not
 * name survive. Ingest validated it with the same schema; a failure here means a
 * different Splitbook wrote it, and a re-sync rewrites it.
 */
function readCached<T>(schema: z.ZodType<T>, rawJson: string, what: string): T {
  const parsed = schema.safeParse(JSON.parse(rawJson));
  if (parsed.success) return parsed.data;
  throw problem(
    'internal',
    500,
    'Unreadable cached record',
    `${what} in the cache does not match what this version of Splitbook expects. Sync the store again to refresh it.`,
  );
}

const COUNT_CACHED_TESTS = read<{ n: number }, { storeId: string | null }>(
  `SELECT count(*) AS n FROM tests WHERE @storeId IS NULL OR store_id = @storeId`,
);

/** How many tests the cache holds for a store (or every store: null), removed ones included. */
export function countCachedTests(db: Db, storeId: string | null): number {
  return COUNT_CACHED_TESTS.get(db, { storeId })?.n ?? 0;
}

const HAS_CACHED_TEST = read<{ n: number }, { storeId: string; testId: string }>(
  `SELECT count(*) AS n FROM tests WHERE store_id = @storeId AND id = @testId`,
);

/** Whether the cache holds a test of a store (removed or not). */
export function hasCachedTest(db: Db, storeId: string, testId: string): boolean {
  return (HAS_CACHED_TEST.get(db, { storeId, testId })?.n ?? 0) !== 0;
}
