// The test list: sort with NULLs last, keyset pages with an opaque cursor, and the filter chips' facets;
// the filter's SQL is test-filter.ts's.
import { z } from 'zod';
import { TEST_STATUSES } from '#shared/api/index';
import { DecisionCall, TestSortKey } from '#shared/contract/index';
import type { Facets, TestFilter, TestListInput, TestPage, TestRow } from '#shared/contract/index';
import { problem } from '#shared/problem';
import { CALL_ORDER } from '#shared/contract/decisions';
import { memoized } from './memo';
import { statement } from '../statements';
import { add, copyWhere, emptyWhere, filterWhere, whereSql, type Where } from './test-filter';
import type { Db } from '../types';
import { hasUserData } from '../user/attached';
import { metricOfGoal, spellingKey } from '#shared/domain/metrics';

type SortDir = TestListInput['sort']['dir'];
type SortValue = string | number;

/**
 * The column each sort key orders by. Every one has an index ending in (store_id) and the rowid (seq),
 * so a page is a short walk of an index; results' figures are copied onto tests for this.
 */
const SORT_COLUMNS: Record<TestSortKey, { expr: string; nullable: boolean }> = {
  title: { expr: 't.title COLLATE NOCASE', nullable: false },
  status: { expr: 't.status', nullable: false },
  goal: { expr: 't.goal', nullable: false },
  startAt: { expr: 't.start_at', nullable: true },
  endAt: { expr: 't.end_at', nullable: true },
  updatedAt: { expr: 't.updated_at', nullable: false },
  probabilityToWin: { expr: 't.probability_to_win', nullable: true },
  lift: { expr: 't.lift', nullable: true },
  goalLift: { expr: 't.goal_lift', nullable: true },
  goalPWin: { expr: 't.goal_p_win', nullable: true },
  // The call's place in CALL_ORDER: the expression of the index tests_by_decision (migration 13), verbatim.
  decision: {
    expr: `(CASE t.decision ${CALL_ORDER.map((call, i) => `WHEN '${call}' THEN ${i + 1}`).join(' ')} END)`,
    nullable: true,
  },
};

// ---------- the cursor ----------

/**
 * Where the previous page ended: its sort key and direction, last sort value (null: in the NULLs) and
 * tiebreak, the store and the row's integer key (the sort indexes end in them, migration 12).
 */
const Cursor = z.object({
  k: TestSortKey,
  d: z.enum(['asc', 'desc']),
  v: z.union([z.string(), z.number(), z.null()]),
  s: z.string(),
  q: z.int(),
});
type Cursor = z.infer<typeof Cursor>;

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decodeCursor(text: string, key: TestSortKey, dir: SortDir): Cursor {
  const cursor = parseCursor(text);
  if (!cursor) {
    throw problem(
      'validation',
      400,
      'Invalid cursor',
      'The page cursor is not one this list gave out.',
    );
  }
  if (cursor.k !== key || cursor.d !== dir) {
    const detail = 'The sort changed since this cursor was given; start from the first page.';
    throw problem('validation', 400, 'Stale cursor', detail);
  }
  return cursor;
}

function parseCursor(text: string): Cursor | null {
  try {
    return (
      Cursor.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))).data ?? null
    );
  } catch {
    return null;
  }
}

// ---------- the list ----------

type ListDbRow = {
  seq: number;
  storeId: string;
  storeName: string | null;
  id: string;
  title: string;
  status: string;
  stage: string;
  goal: string;
  device: string;
  startAt: string | null;
  endAt: string | null;
  updatedAt: string;
  campaignName: string | null;
  tagNames: string;
  probabilityToWin: number | null;
  lift: number | null;
  visitors: number | null;
  tier: string | null;
  alerts: string | null;
  leader: string | null;
  removed: number;
  decision: string | null;
  decisionWords: string | null;
  decisionReason: string | null;
  daysToDecision: number | null;
  goalLift: number | null;
  goalPWin: number | null;
  sortValue: SortValue | null;
};

/**
 * A page is found by a key-only query (seq in sort order: an index walk, or a sort of narrow
 * rows when a filter picks another index), then joined to the columns it shows, so store
 * and campaign names are looked up for the page's rows only. CROSS JOIN keeps the page the
 * outer loop (SQLite never reorders it), so the join never scans tests.
 */
function pageSql(keyQuery: string, expr: string, order: string): string {
  return `
    SELECT t.seq, t.store_id AS storeId, s.name AS storeName, t.id, t.title, t.status, t.stage, t.goal, t.device,
           t.start_at AS startAt, t.end_at AS endAt, t.updated_at AS updatedAt,
           coalesce(t.campaign_name, c.name) AS campaignName, t.tag_names AS tagNames,
           t.probability_to_win AS probabilityToWin, t.lift, t.visitors, t.tier, t.alerts, t.leader, t.removed,
           t.decision, t.decision_words AS decisionWords, t.decision_reason AS decisionReason,
           t.days_to_decision AS daysToDecision, t.goal_lift AS goalLift, t.goal_p_win AS goalPWin,
           ${expr} AS sortValue
    FROM (${keyQuery}) AS page
    CROSS JOIN tests t ON t.seq = page.seq
    LEFT JOIN stores s ON s.id = t.store_id
    LEFT JOIN campaigns c ON c.store_id = t.store_id AND c.id = t.campaign_id
    ORDER BY ${order}`;
}

/**
 * One page of the filtered, sorted tests. NULL sort values come last in both directions;
 * ties break on (store_id, seq) in the sort's direction. A page is read as up to two walks:
 * the rows with a value, then (for nullable keys) the rows without one.
 */
export function listTests(db: Db, input: TestListInput): TestPage {
  const { key, dir } = input.sort;
  const sort = SORT_COLUMNS[key];
  const cursor = input.cursor === null ? null : decodeCursor(input.cursor, key, dir);
  const filter = filterWhere(input, true, hasUserData(db));
  const wanted = input.limit + 1; // one more than a page tells whether another page follows

  const rows: ListDbRow[] = [];
  if (!cursor || cursor.v !== null) {
    rows.push(...readValued(db, filter, sort, dir, cursor, wanted));
  }
  if (sort.nullable && rows.length < wanted) {
    const inNulls = cursor !== null && cursor.v === null ? cursor : null;
    rows.push(...readNulls(db, filter, sort.expr, dir, inNulls, wanted - rows.length));
  }

  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > input.limit && last
      ? encodeCursor({ k: key, d: dir, v: last.sortValue, s: last.storeId, q: last.seq })
      : null;
  // Counted once per filter while the data stands: every cursor page of one walk shares it.
  const counts = countsAnswer(input) ? countsWhere(input, true) : null;
  const countSql = counts
    ? `SELECT coalesce(sum(f.n), 0) AS n FROM test_facet_counts f ${whereSql(counts)}`
    : `SELECT count(*) AS n FROM tests t ${whereSql(filter)}`;
  const params = counts ? counts.params : filter.params;
  const total = memoized(db, `count ${countSql} ${JSON.stringify(params)}`, () => {
    return statement<{ n: number }>(db, countSql).get(params)?.n ?? 0;
  });
  return { rows: page.map(toTestRow), nextCursor, total };
}

function readValued(
  db: Db,
  filter: Where,
  sort: { expr: string; nullable: boolean },
  dir: SortDir,
  cursor: Cursor | null,
  limit: number,
): ListDbRow[] {
  const where = copyWhere(filter);
  if (sort.nullable) add(where, `${sort.expr} IS NOT NULL`);
  if (cursor) {
    const after = `(${sort.expr}, t.store_id, t.seq) ${dir === 'asc' ? '>' : '<'} (@afterValue, @afterStore, @afterSeq)`;
    add(where, after, { afterValue: cursor.v, afterStore: cursor.s, afterSeq: cursor.q });
  }
  const order = `${sort.expr} ${dir}, t.store_id ${dir}, t.seq ${dir}`;
  const keys = `SELECT t.seq FROM tests t ${whereSql(where)} ORDER BY ${order} LIMIT @limit`;
  return statement<ListDbRow>(db, pageSql(keys, sort.expr, order)).all({ ...where.params, limit });
}

function readNulls(
  db: Db,
  filter: Where,
  expr: string,
  dir: SortDir,
  cursor: Cursor | null,
  limit: number,
): ListDbRow[] {
  const where = copyWhere(filter);
  add(where, `${expr} IS NULL`);
  if (cursor) {
    add(where, `(t.store_id, t.seq) ${dir === 'asc' ? '>' : '<'} (@afterStore, @afterSeq)`, {
      afterStore: cursor.s,
      afterSeq: cursor.q,
    });
  }
  const order = `t.store_id ${dir}, t.seq ${dir}`;
  const keys = `SELECT t.seq FROM tests t ${whereSql(where)} ORDER BY ${order} LIMIT @limit`;
  return statement<ListDbRow>(db, pageSql(keys, expr, order)).all({ ...where.params, limit });
}

function toTestRow(row: ListDbRow): TestRow {
  return {
    storeId: row.storeId,
    storeName: row.storeName ?? '',
    id: row.id,
    title: row.title,
    status: row.status,
    stage: row.stage,
    goal: row.goal,
    device: row.device,
    startAt: row.startAt,
    endAt: row.endAt,
    updatedAt: row.updatedAt,
    campaignName: row.campaignName,
    tags: parseNames(row.tagNames),
    probabilityToWin: row.probabilityToWin,
    lift: row.lift,
    visitors: row.visitors,
    tier: row.tier,
    alerts: row.alerts === null ? null : parseNames(row.alerts),
    leader: row.leader,
    removed: row.removed === 1,
    decision: DecisionCall.safeParse(row.decision).data ?? null,
    decisionWords: row.decisionWords,
    decisionReason: row.decisionReason,
    daysToDecision: row.daysToDecision,
    goalLift: row.goalLift,
    goalPWin: row.goalPWin,
  };
}

function parseNames(json: string): string[] {
  const value: unknown = JSON.parse(json);
  return Array.isArray(value)
    ? value.filter((name): name is string => typeof name === 'string')
    : [];
}

// ---------- facets ----------

/** Options in reading order: case and accents ignored, numbers by value; exact ties by code unit. */
const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
const byName = (a: string, b: string): number =>
  collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);

/**
 * What the filter bar offers. Status counts follow the whole filter except its statuses,
 * so every chip shows what choosing it would give; the option lists (stages, goals,
 * devices, tags, campaigns) cover the filter's scope (store, removed or not), so picking
 * one option never hides the others.
 */
export function testFacets(db: Db, filter: TestFilter): Facets {
  // The chips ask again after every refresh; while the data stands the answer does too.
  return memoized(db, `facets ${JSON.stringify(filter)}`, () => computeFacets(db, filter));
}

/**
 * Whether the kept counts (test_facet_counts, migration 9) answer the filter: they hold store, removed,
 * status, stage, goal, device and alerted, so a search, tag, campaign, audience or "Mine" condition needs
 * the tests.
 */
function countsAnswer(filter: TestFilter): boolean {
  return (
    !filter.mine &&
    filter.search.trim() === '' &&
    filter.tag === null &&
    filter.campaignId === null &&
    filter.audienceId === null
  );
}

/** The filter over the kept counts' columns (only valid where `countsAnswer` holds). */
function countsWhere(filter: TestFilter, withStatuses: boolean): Where {
  const where = emptyWhere();
  if (filter.storeId !== null) add(where, 'f.store_id = @storeId', { storeId: filter.storeId });
  if (!filter.includeRemoved) add(where, 'f.removed = 0');
  if (withStatuses && filter.statuses.length > 0) {
    add(where, 'f.status IN (SELECT value FROM json_each(@statuses))', {
      statuses: JSON.stringify(filter.statuses),
    });
  }
  if (filter.stage !== null) add(where, 'f.stage = @stage', { stage: filter.stage });
  if (filter.goal !== null) {
    add(where, 'spelling_key(f.goal) = spelling_key(@goal)', { goal: filter.goal });
  }
  if (filter.device !== null) add(where, 'f.device = @device', { device: filter.device });
  if (filter.hasAlerts) add(where, 'f.alerted = 1');
  return where;
}

/**
 * Facets from the kept counts: a few thousand rows at 50,000 tests instead of several scans of them.
 * The option lists always come from there (they follow the scope only); the status counts and the
 * alert count do when the filter allows (`countsAnswer`), else from the tests as before.
 */
function computeFacets(db: Db, filter: TestFilter): Facets {
  const scope = countsWhere(
    { ...filter, stage: null, goal: null, device: null, hasAlerts: false },
    false,
  );
  const counted = countsAnswer(filter) ? statusCountsFromCounts(db, filter) : null;
  const comboSql = `SELECT DISTINCT f.stage, f.goal, f.device FROM test_facet_counts f ${whereSql(scope)}`;
  const combos = statement<{ stage: string; goal: string; device: string }>(db, comboSql).all(
    scope.params,
  );
  const options = (pick: (combo: (typeof combos)[number]) => string): string[] =>
    [...new Set(combos.map(pick))].sort(byName);
  const campaignSql = `
    SELECT used.id, coalesce(used.name, c.name, used.id) AS name, s.name AS storeName
    FROM (
      SELECT f.campaign_id AS id, max(CASE WHEN f.named = 1 THEN f.name END) AS name, max(f.store_id) AS storeId
      FROM test_campaign_counts f ${whereSql(scope)}
      GROUP BY f.campaign_id
    ) AS used
    LEFT JOIN campaigns c ON c.store_id = used.storeId AND c.id = used.id
    LEFT JOIN stores s ON s.id = used.storeId`;
  const campaigns = statement<{ id: string; name: string; storeName: string | null }>(
    db,
    campaignSql,
  )
    .all(scope.params)
    .sort(
      (a, b) =>
        byName(a.name, b.name) ||
        byName(a.storeName ?? '', b.storeName ?? '') ||
        byName(a.id, b.id),
    );
  const { statusCounts, withAlerts } = counted ?? statusCountsFromTests(db, filter);
  return {
    statusCounts,
    stages: options((combo) => combo.stage),
    goals: goalOptions(combos.map((combo) => combo.goal)),
    devices: options((combo) => combo.device),
    tags: tagOptions(db, filter),
    campaigns,
    withAlerts,
  };
}

/**
 * One option per goal whatever its spellings (the domain's spellingKey): a known goal by its own
 * spelling (metrics.ts) where the tests use it, else by the first spelling in reading order. The
 * filter matches every spelling of the option's key.
 */
function goalOptions(goals: readonly string[]): string[] {
  const byKey = new Map<string, string[]>();
  for (const goal of goals) {
    const key = spellingKey(goal);
    const list = byKey.get(key);
    if (list) list.push(goal);
    else byKey.set(key, [goal]);
  }
  return [...byKey.values()]
    .map(
      (spellings) =>
        spellings.find((s) => metricOfGoal(s)?.goal === s) ?? [...spellings].sort(byName)[0] ?? '',
    )
    .sort(byName);
}

function emptyStatusCounts(): Record<string, number> {
  return Object.fromEntries(TEST_STATUSES.map((status) => [status, 0]));
}

function statusCountsFromCounts(
  db: Db,
  filter: TestFilter,
): Pick<Facets, 'statusCounts' | 'withAlerts'> {
  const counted = countsWhere(filter, false);
  const sql = `SELECT f.status, sum(f.n) AS n FROM test_facet_counts f ${whereSql(counted)} GROUP BY f.status`;
  const statusCounts = emptyStatusCounts();
  for (const { status, n } of statement<{ status: string; n: number }>(db, sql).all(
    counted.params,
  )) {
    if (n > 0) statusCounts[status] = n;
  }
  const alerted = countsWhere({ ...filter, hasAlerts: true }, true);
  const alertSql = `SELECT coalesce(sum(f.n), 0) AS n FROM test_facet_counts f ${whereSql(alerted)}`;
  const withAlerts = statement<{ n: number }>(db, alertSql).get(alerted.params)?.n ?? 0;
  return { statusCounts, withAlerts };
}

/** Status and alert counts for a filter the kept counts cannot answer (a search, tag, campaign or audience). */
function statusCountsFromTests(
  db: Db,
  filter: TestFilter,
): Pick<Facets, 'statusCounts' | 'withAlerts'> {
  const counted = filterWhere(filter, false, hasUserData(db));
  const alerted = filterWhere({ ...filter, hasAlerts: true }, true, hasUserData(db));
  const withAlerts =
    statement<{ n: number }>(db, `SELECT count(*) AS n FROM tests t ${whereSql(alerted)}`).get(
      alerted.params,
    )?.n ?? 0;
  const statusCounts = emptyStatusCounts();
  // `+` again: grouping by the status index would read every row; the covering tests_by_removed is enough.
  const countSql = `SELECT t.status, count(*) AS n FROM tests t ${whereSql(counted)} GROUP BY +t.status`;
  for (const { status, n } of statement<{ status: string; n: number }>(db, countSql).all(
    counted.params,
  )) {
    statusCounts[status] = n;
  }
  return { statusCounts, withAlerts };
}

/** Tag names in use by a test in scope; tag filtering ignores case, so names differing only in case are one option. */
function tagOptions(db: Db, filter: TestFilter): string[] {
  const sql = `
    SELECT g.name FROM tags g
    WHERE ${filter.storeId !== null ? 'g.store_id = @storeId AND' : ''} EXISTS (
      SELECT 1 FROM test_tags tt JOIN tests t ON t.store_id = tt.store_id AND t.id = tt.test_id
      WHERE tt.store_id = g.store_id AND tt.tag_id = g.id ${filter.includeRemoved ? '' : 'AND t.removed = 0'})`;
  const names = statement<{ name: string }>(db, sql)
    .all({ storeId: filter.storeId })
    .map((row) => row.name)
    .sort(byName);
  const seen = new Set<string>();
  return names.filter((name) => {
    // Folded as SQLite's NOCASE folds (ASCII only), so one option is one filter.
    const folded = name.replace(/[A-Z]/g, (c) => c.toLowerCase());
    if (seen.has(folded)) return false;
    seen.add(folded);
    return true;
  });
}
