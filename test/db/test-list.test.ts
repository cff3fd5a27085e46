// The test list: every sort key both ways against a reference sort, keyset pages, filters, search and facets.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { markMissingRemoved, upsertTests } from '#core/db/cache/tests';
import { replaceCampaigns } from '#core/db/cache/campaigns';
import { replaceCustomAudiences } from '#core/db/cache/audiences';
import { upsertResults } from '#core/decisions/results';
import { listAudiences, listTests, testFacets } from '#core/db/cache/reads';
import {
  TEST_SORT_KEYS,
  TestFilter,
  TestListInput,
  type TestFilterInput,
  type TestRow,
  type TestSortKey,
} from '#shared/contract/index';
import type { Test } from '#shared/api/index';
import {
  decideTest,
  DEFAULT_DECISION_SETTINGS,
  type Decision,
} from '#shared/domain/decisions/index';
import { ProblemError } from '#shared/problem';
import type { Db } from '#core/db/types';
import {
  addStore,
  customAudience,
  makeCampaign,
  makeResults,
  makeTest,
  openTempDb,
  tag,
  uuid,
} from './fixtures';

const NOW = '2026-03-01T10:00:00Z';

// ---------- a catalogue with ties, NULLs, case variants, removed tests and results ----------

const TITLES = [
  'Free shipping bar',
  'free shipping bar',
  'Sticky cart',
  'Hero banner',
  'hero Banner',
  'Äpfel im Korb',
  'zebra stripes',
  'Café menu',
];
const STATUSES = ['active', 'paused', 'completed', 'draft', 'cancelled', 'archived'];
const GOALS = ['conversion', 'revenue', 'aov'];
const DEVICES = ['all', 'mobile', 'desktop', 'all'];
const STAGES = ['idea', 'build', 'idea', 'review', 'idea'];

/** What a row must show, as the reference sort sees it. */
type Expected = Pick<
  TestRow,
  | 'storeId'
  | 'id'
  | 'title'
  | 'status'
  | 'goal'
  | 'startAt'
  | 'endAt'
  | 'updatedAt'
  | 'probabilityToWin'
  | 'lift'
  | 'removed'
  | 'goalLift'
  | 'goalPWin'
  | 'decision'
>;

function seedCatalogue(db: Db): Expected[] {
  const expected: Expected[] = [];
  const s1Tests: Test[] = [];
  const stores = ['s1', 's2', 's3'];
  for (const storeId of stores) addStore(db, storeId, `Shop ${storeId}`);
  replaceCampaigns(db, {
    storeId: 's2',
    campaigns: [makeCampaign(2, 'Spring sale')],
    syncedAt: NOW,
  });

  for (let n = 1; n <= 66; n += 1) {
    const storeId = stores[n % 3] ?? 's1';
    const day = String(1 + (n % 9)).padStart(2, '0'); // repeated dates make ties
    const test = makeTest({
      n,
      title: TITLES[n % TITLES.length] ?? 'x',
      status: STATUSES[n % STATUSES.length] ?? 'active',
      goal: GOALS[n % GOALS.length] ?? 'conversion',
      device: DEVICES[n % DEVICES.length] ?? 'all',
      stage: STAGES[n % STAGES.length] ?? 'idea',
      startAt: n % 4 === 0 ? null : `2026-01-${day}T00:00:00Z`,
      endAt: n % 3 === 0 ? `2026-02-${day}T00:00:00Z` : null,
      updatedAt: `2026-02-${String(1 + (n % 5)).padStart(2, '0')}T00:00:00Z`,
      hypothesisDescription: n % 7 === 0 ? 'Showing delivery costs early lifts orders' : null,
      handle: `exp-${n}`,
      tags: n % 2 === 0 ? [tag(1, storeId === 's3' ? 'CHECKOUT' : 'Checkout')] : [tag(2, 'Mobile')],
      campaign:
        n % 5 === 0
          ? { id: uuid(1, 7), name: 'Black Friday' }
          : n % 5 === 1 && storeId === 's2'
            ? { id: uuid(2, 7) }
            : null,
    });
    upsertTests(db, { storeId: storeId, tests: [test], runId: 'run-1', syncedAt: NOW });
    if (storeId === 's1') s1Tests.push(test);
    let probabilityToWin: number | null = null;
    let lift: number | null = null;
    let decision: Decision | null = null;
    if (n % 3 !== 1) {
      probabilityToWin = (n % 6) / 10; // repeated values make ties
      lift = n % 4 === 0 ? -0.05 : (n % 8) / 100;
      const results = makeResults(test.id, { variantProbabilityWin: probabilityToWin, lift });
      upsertResults(db, {
        storeId: storeId,
        testId: test.id,
        results: results,
        fetchedAt: NOW,
        testUpdatedAt: test.updatedAt,
        testStatus: test.status,
      });
      decision = decideTest({ test, results, settings: DEFAULT_DECISION_SETTINGS });
    }
    expected.push({
      storeId,
      id: test.id,
      title: test.title,
      status: test.status,
      goal: test.goal,
      startAt: test.startAt,
      endAt: test.endAt,
      updatedAt: test.updatedAt,
      probabilityToWin,
      lift,
      removed: false,
      goalLift: decision?.goal?.lift ?? null,
      goalPWin: decision?.goal?.pWin ?? null,
      decision: decision?.call ?? null,
    });
  }
  // A complete listing of s1 without its first two tests: they are marked removed.
  const gone = new Set(s1Tests.slice(0, 2).map((test) => test.id));
  upsertTests(db, {
    storeId: 's1',
    tests: s1Tests.filter((test) => !gone.has(test.id)),
    runId: 'run-2',
    syncedAt: NOW,
  });
  markMissingRemoved(db, 's1', 'run-2');
  return expected.map((row) => (gone.has(row.id) ? { ...row, removed: true } : row));
}

// ---------- the reference sort ----------

/** SQLite's NOCASE folds ASCII letters only; UTF-16 order equals UTF-8 byte order for these titles. */
const nocase = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The decision sorts by the call's place in the Decisions view's order, needing the consultant first. */
const CALL_RANK = [
  'ship',
  'keep_control',
  'check_data',
  'no_difference',
  'cannot_conclude',
  'keep_running',
];

function sortValue(row: Expected, key: TestSortKey): string | number | null {
  if (key === 'decision') return row.decision === null ? null : CALL_RANK.indexOf(row.decision) + 1;
  return key === 'title' ? nocase(row.title) : row[key];
}

function compare(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** NULLs last in both directions; ties on (storeId, id) in the sort's direction. */
function referenceOrder(rows: Expected[], key: TestSortKey, dir: 'asc' | 'desc'): string[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...rows]
    .sort((x, y) => {
      const a = sortValue(x, key);
      const b = sortValue(y, key);
      if (a === null || b === null) {
        if (a !== b) return a === null ? 1 : -1;
      } else if (a !== b) {
        return sign * compare(a, b);
      }
      return sign * (compare(x.storeId, y.storeId) || compare(x.id, y.id));
    })
    .map((row) => `${row.storeId}/${row.id}`);
}

/** Every page from the first, following nextCursor. */
function walk(
  db: Db,
  input: TestFilterInput & { sort: { key: TestSortKey; dir: 'asc' | 'desc' }; limit: number },
) {
  const seen: string[] = [];
  const totals = new Set<number>();
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page = listTests(db, TestListInput.parse({ ...input, cursor }));
    totals.add(page.total);
    seen.push(...page.rows.map((row) => `${row.storeId}/${row.id}`));
    if (page.rows.length > input.limit) throw new Error('page longer than limit');
    if (page.nextCursor === null) return { ids: seen, totals: [...totals] };
    cursor = page.nextCursor;
  }
  throw new Error('pagination did not end');
}

describe('listTests: sort and keyset pagination', () => {
  const cases: { name: string; filter: TestFilterInput; keep: (row: Expected) => boolean }[] = [
    { name: 'all stores', filter: {}, keep: (row) => !row.removed },
    { name: 'removed included', filter: { includeRemoved: true }, keep: () => true },
    { name: 'one store', filter: { storeId: 's2' }, keep: (row) => row.storeId === 's2' },
    {
      name: 'statuses',
      filter: { statuses: ['active', 'archived'] },
      keep: (row) => !row.removed && ['active', 'archived'].includes(row.status),
    },
  ];

  it('walks every page of every sort key, both ways, in the reference order (NULLs last)', () => {
    const db = openTempDb();
    const catalogue = seedCatalogue(db);
    for (const { name, filter, keep } of cases) {
      const rows = catalogue.filter(keep);
      for (const key of TEST_SORT_KEYS) {
        for (const dir of ['asc', 'desc'] as const) {
          const label = `${name}, ${key} ${dir}`;
          const { ids, totals } = walk(db, { ...filter, sort: { key, dir }, limit: 7 });
          expect(ids, label).toEqual(referenceOrder(rows, key, dir));
          expect(totals, label).toEqual([rows.length]);
        }
      }
    }
  });

  it('gives one page and no cursor when everything fits', () => {
    const db = openTempDb();
    const catalogue = seedCatalogue(db);
    const page = listTests(db, TestListInput.parse({ includeRemoved: true, limit: 2000 }));
    expect(page.rows).toHaveLength(catalogue.length);
    expect(page.nextCursor).toBeNull();
    const exact = listTests(
      db,
      TestListInput.parse({ includeRemoved: true, limit: catalogue.length }),
    );
    expect(exact.nextCursor).toBeNull();
  });

  it('keeps its place when tests are added before the cursor: no repeats, no skips', () => {
    const db = openTempDb();
    seedCatalogue(db);
    const input = { sort: { key: 'title' as const, dir: 'asc' as const }, limit: 10 };
    const first = listTests(db, TestListInput.parse(input));
    upsertTests(db, {
      storeId: 's1',
      tests: [makeTest({ n: 500, title: 'AAA first of all' })],
      runId: 'run-3',
      syncedAt: NOW,
    });
    const second = listTests(db, TestListInput.parse({ ...input, cursor: first.nextCursor }));
    const fresh = listTests(db, TestListInput.parse({ ...input, limit: 21 })).rows.map(
      (row) => row.id,
    );
    expect(second.rows.map((row) => row.id)).toEqual(fresh.slice(11, 21));
  });

  it('refuses a cursor it did not give out, or one from another sort', () => {
    const db = openTempDb();
    seedCatalogue(db);
    const page = listTests(
      db,
      TestListInput.parse({ limit: 5, sort: { key: 'title', dir: 'asc' } }),
    );
    const attempts = [
      () => listTests(db, TestListInput.parse({ cursor: 'not a cursor' })),
      () =>
        listTests(
          db,
          TestListInput.parse({ cursor: Buffer.from('{"k":"title"}').toString('base64url') }),
        ),
      () =>
        listTests(
          db,
          TestListInput.parse({ cursor: page.nextCursor, sort: { key: 'title', dir: 'desc' } }),
        ),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(ProblemError);
      try {
        attempt();
      } catch (error) {
        expect(error instanceof ProblemError && error.problem.status).toBe(400);
      }
    }
  });

  it('walks the sort index for an unfiltered page instead of sorting every test', () => {
    const db = openTempDb();
    seedCatalogue(db);
    const plans: { sql: string; steps: { id: number; parent: number; detail: string }[] }[] = [];
    const prepare = db.prepare.bind(db);
    // Record each statement listTests prepares, with its query plan.
    db.prepare = ((sql: string) => {
      if (sql.includes('AS page')) {
        const explain = prepare<
          [Record<string, null>],
          { id: number; parent: number; detail: string }
        >(`EXPLAIN QUERY PLAN ${sql}`);
        // Every named parameter (@name) bound to NULL: the plan does not depend on the values.
        const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], null]));
        plans.push({ sql, steps: explain.all(params) });
      }
      return prepare(sql);
    }) as typeof db.prepare;
    for (const key of TEST_SORT_KEYS) {
      for (const dir of ['asc', 'desc'] as const)
        listTests(db, TestListInput.parse({ sort: { key, dir } }));
    }
    expect(plans.length).toBeGreaterThanOrEqual(TEST_SORT_KEYS.length * 2);
    for (const { sql, steps } of plans) {
      const page = steps.find((step) => step.detail.startsWith('CO-ROUTINE page'));
      expect(page, sql).toBeDefined();
      const sortsInside = steps.filter(
        (step) => step.parent === page?.id && step.detail.includes('TEMP B-TREE'),
      );
      expect(sortsInside, sql).toEqual([]);
    }
  });
});

describe('listTests: rows and filters', () => {
  function ids(db: Db, filter: TestFilterInput): string[] {
    return listTests(db, TestListInput.parse({ ...filter, limit: 2000 }))
      .rows.map((row) => row.id)
      .sort();
  }

  function seedSmall(db: Db) {
    addStore(db, 's1', 'Shop one');
    addStore(db, 's2', 'Shop two');
    replaceCampaigns(db, {
      storeId: 's1',
      campaigns: [makeCampaign(9, 'Listed name')],
      syncedAt: NOW,
    });
    const tests = {
      shipping: makeTest({
        n: 1,
        title: 'Free shipping bar',
        goal: 'revenue',
        device: 'mobile',
        stage: 'build',
        tags: [tag(1, 'Checkout'), tag(2, 'Mobile')],
        campaign: { id: uuid(9, 7) },
      }),
      sticky: makeTest({
        n: 2,
        title: 'Sticky add to cart',
        hypothesisDescription: 'Visitors who see delivery costs early buy more',
        status: 'paused',
      }),
      handle: makeTest({
        n: 3,
        title: 'Price anchor',
        handle: 'price-anchor-2026',
        status: 'completed',
      }),
      percent: makeTest({
        n: 4,
        title: 'Save 100% more',
        status: 'draft',
        campaign: { id: uuid(8, 7), name: 'Spring' },
      }),
      plain: makeTest({ n: 5, title: 'Save 1000 more', tags: [tag(3, 'checkout')] }),
      cafe: makeTest({ n: 6, title: 'Café "quotes" menu', goal: 'aov' }),
    };
    upsertTests(db, {
      storeId: 's1',
      tests: [tests.shipping, tests.sticky, tests.handle, tests.percent],
      runId: 'run-1',
      syncedAt: NOW,
    });
    upsertTests(db, {
      storeId: 's2',
      tests: [tests.plain, tests.cafe],
      runId: 'run-1',
      syncedAt: NOW,
    });
    return tests;
  }

  it('shows store, campaign (from the test, else the campaign list), tags and results', () => {
    const db = openTempDb();
    const t = seedSmall(db);
    const results = makeResults(t.shipping.id);
    upsertResults(db, {
      storeId: 's1',
      testId: t.shipping.id,
      results: results,
      fetchedAt: NOW,
      testUpdatedAt: t.shipping.updatedAt,
      testStatus: t.shipping.status,
    });
    const rows = listTests(db, TestListInput.parse({ sort: { key: 'title', dir: 'asc' } })).rows;
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(t.shipping.id)).toEqual({
      storeId: 's1',
      storeName: 'Shop one',
      id: t.shipping.id,
      title: 'Free shipping bar',
      status: 'active',
      stage: 'build',
      goal: 'revenue',
      device: 'mobile',
      startAt: null,
      endAt: null,
      updatedAt: t.shipping.updatedAt,
      campaignName: 'Listed name',
      tags: ['Checkout', 'Mobile'],
      probabilityToWin: 0.81,
      lift: 0.2,
      visitors: 2000,
      tier: 'emerging',
      alerts: expect.any(Array),
      leader: 'variant',
      removed: false,
      // "revenue" is no goal Splitbook knows: a call that says so, and no goal figures.
      decision: 'cannot_conclude',
      decisionWords: 'Cannot conclude at this traffic',
      decisionReason: expect.stringContaining('cannot read the goal "revenue"'),
      daysToDecision: null,
      goalLift: null,
      goalPWin: null,
    });
    expect(byId.get(t.percent.id)).toMatchObject({
      campaignName: 'Spring',
      probabilityToWin: null,
      lift: null,
      visitors: null,
      tier: null,
      alerts: null,
      leader: null,
      decision: null,
      goalLift: null,
    });
  });

  it('filters by store, statuses, stage, goal, device, tag (any case) and campaign, together', () => {
    const db = openTempDb();
    const t = seedSmall(db);
    expect(ids(db, { storeId: 's2' })).toEqual([t.plain.id, t.cafe.id].sort());
    expect(ids(db, { statuses: ['paused', 'completed'] })).toEqual(
      [t.sticky.id, t.handle.id].sort(),
    );
    expect(ids(db, { stage: 'build' })).toEqual([t.shipping.id]);
    expect(ids(db, { goal: 'aov' })).toEqual([t.cafe.id]);
    expect(ids(db, { device: 'mobile' })).toEqual([t.shipping.id]);
    expect(ids(db, { tag: 'CHECKOUT' })).toEqual([t.shipping.id, t.plain.id].sort());
    expect(ids(db, { tag: 'checkout', storeId: 's2' })).toEqual([t.plain.id]);
    expect(ids(db, { campaignId: uuid(9, 7) })).toEqual([t.shipping.id]);
    expect(ids(db, { statuses: ['active'], goal: 'revenue', tag: 'mobile' })).toEqual([
      t.shipping.id,
    ]);
    expect(ids(db, { statuses: ['cancelled'] })).toEqual([]);
    expect(listTests(db, TestListInput.parse({ tag: 'checkout' })).total).toBe(2);
  });

  it('filters by custom audience, and its count agrees with the audience list\'s "used by"', () => {
    const db = openTempDb();
    addStore(db, 's1', 'Shop one');
    addStore(db, 's2', 'Shop two');
    const buyers = customAudience(1, 'Returning buyers');
    const nordics = customAudience(2, 'Nordics');
    const unused = customAudience(3, 'Nobody uses me');
    replaceCustomAudiences(db, {
      storeId: 's1',
      audiences: [buyers, nordics, unused],
      syncedAt: NOW,
    });
    const both = makeTest({ n: 1, title: 'Both audiences', customAudiences: [buyers, nordics] });
    const buyersOnly = makeTest({ n: 2, title: 'Buyers only', customAudiences: [buyers] });
    const gone = makeTest({ n: 3, title: 'Removed later', customAudiences: [buyers] });
    const nobody = makeTest({ n: 4, title: 'No audience', status: 'paused' });
    upsertTests(db, {
      storeId: 's1',
      tests: [both, buyersOnly, gone, nobody],
      runId: 'run-1',
      syncedAt: NOW,
    });
    // A complete listing without `gone`: it is removed, so neither count holds it.
    upsertTests(db, {
      storeId: 's1',
      tests: [both, buyersOnly, nobody],
      runId: 'run-2',
      syncedAt: NOW,
    });
    markMissingRemoved(db, 's1', 'run-2');
    // Another store's test, to show the filter does not leak across stores in "All stores".
    upsertTests(db, {
      storeId: 's2',
      tests: [makeTest({ n: 5, title: 'Other shop' })],
      runId: 'run-1',
      syncedAt: NOW,
    });

    expect(ids(db, { audienceId: buyers.id })).toEqual([both.id, buyersOnly.id].sort());
    expect(ids(db, { audienceId: buyers.id, storeId: 's1' })).toEqual(
      [both.id, buyersOnly.id].sort(),
    );
    expect(ids(db, { audienceId: buyers.id, includeRemoved: true })).toEqual(
      [both.id, buyersOnly.id, gone.id].sort(),
    );
    expect(ids(db, { audienceId: nordics.id })).toEqual([both.id]);
    expect(ids(db, { audienceId: unused.id })).toEqual([]);
    expect(ids(db, { audienceId: buyers.id, statuses: ['paused'] })).toEqual([]);
    expect(ids(db, { audienceId: buyers.id, search: 'only' })).toEqual([buyersOnly.id]);

    // "Used by N tests" is the number of rows the filtered list shows, for every audience.
    for (const row of listAudiences(db, null)) {
      const page = listTests(
        db,
        TestListInput.parse({ storeId: row.storeId, audienceId: row.audience.id, limit: 2000 }),
      );
      expect(page.total, row.audience.name).toBe(row.testCount);
      expect(page.rows.length, row.audience.name).toBe(row.testCount);
    }
    // The chips count within the audience too.
    const facets = testFacets(db, TestFilter.parse({ audienceId: buyers.id }));
    expect(facets.statusCounts.active).toBe(2);
    expect(facets.statusCounts.paused).toBe(0);
  });

  it('search finds any part of a word, in any case, in title, hypothesis or handle', () => {
    const db = openTempDb();
    const t = seedSmall(db);
    expect(ids(db, { search: 'ship' })).toEqual([t.shipping.id]);
    expect(ids(db, { search: 'SHIPPING' })).toEqual([t.shipping.id]);
    expect(ids(db, { search: 'deliver' })).toEqual([t.sticky.id]); // hypothesis
    expect(ids(db, { search: 'anchor-20' })).toEqual([t.handle.id]); // handle
    expect(ids(db, { search: '  save   more ' })).toEqual([t.percent.id, t.plain.id].sort()); // every word
    expect(ids(db, { search: 'save anchor' })).toEqual([]);
    expect(ids(db, { search: 'cafe' })).toEqual([t.cafe.id]); // accents ignored
    expect(ids(db, { search: 'ba' })).toEqual([t.shipping.id]); // short words too
    expect(ids(db, { search: 'zzz' })).toEqual([]);
  });

  it('search treats quotes, % and _ as text', () => {
    const db = openTempDb();
    const t = seedSmall(db);
    expect(ids(db, { search: '100%' })).toEqual([t.percent.id]);
    expect(ids(db, { search: '%' })).toEqual([t.percent.id]);
    expect(ids(db, { search: '_' })).toEqual([]);
    expect(ids(db, { search: '"quotes"' })).toEqual([t.cafe.id]);
    expect(ids(db, { search: '"' })).toEqual([t.cafe.id]);
    expect(ids(db, { search: 'AND OR NOT * ( )' })).toEqual([]);
  });
});

describe('testFacets', () => {
  it('counts every status under the rest of the filter, and lists the options in scope', () => {
    const db = openTempDb();
    addStore(db, 's1');
    addStore(db, 's2');
    replaceCampaigns(db, {
      storeId: 's2',
      campaigns: [makeCampaign(2, 'Named by list')],
      syncedAt: NOW,
    });
    const tests = [
      makeTest({
        n: 1,
        status: 'active',
        goal: 'revenue',
        tags: [tag(1, 'Checkout')],
        campaign: { id: uuid(1, 7), name: 'Zeta' },
      }),
      makeTest({ n: 2, status: 'active', goal: 'aov', device: 'mobile', tags: [tag(2, 'mobile')] }),
      makeTest({ n: 3, status: 'archived', goal: 'revenue', stage: 'build' }),
      makeTest({ n: 4, status: 'paused', goal: 'revenue' }),
    ];
    upsertTests(db, { storeId: 's1', tests: tests, runId: 'run-1', syncedAt: NOW });
    const kept = makeTest({
      n: 5,
      status: 'completed',
      tags: [tag(3, 'CHECKOUT'), tag(4, 'Alpha')],
      campaign: { id: uuid(2, 7) },
    });
    const removed = makeTest({
      n: 6,
      status: 'draft',
      device: 'desktop',
      tags: [tag(5, 'Gone soon')],
    });
    upsertTests(db, { storeId: 's2', tests: [kept, removed], runId: 'run-1', syncedAt: NOW });
    upsertTests(db, { storeId: 's2', tests: [kept], runId: 'run-2', syncedAt: NOW });
    markMissingRemoved(db, 's2', 'run-2');

    const all = testFacets(db, TestFilter.parse({ statuses: ['active'], goal: 'revenue' }));
    expect(all.statusCounts).toEqual({
      draft: 0,
      scheduled: 0,
      active: 1,
      paused: 1,
      suspended: 0,
      incompatible: 0,
      cancelled: 0,
      completed: 0,
      archived: 1,
    });
    expect(all.stages).toEqual(['build', 'idea']);
    expect(all.goals).toEqual(['aov', 'conversion', 'revenue']);
    expect(all.devices).toEqual(['all', 'mobile']); // 'desktop' only on a removed test
    expect(all.tags).toEqual(['Alpha', 'CHECKOUT', 'mobile']); // one option per name, whatever its case
    expect(all.campaigns).toEqual([
      { id: uuid(2, 7), name: 'Named by list', storeName: 'Store s2' },
      { id: uuid(1, 7), name: 'Zeta', storeName: 'Store s1' },
    ]);

    const s2 = testFacets(db, TestFilter.parse({ storeId: 's2', includeRemoved: true }));
    expect(s2.statusCounts).toMatchObject({ completed: 1, draft: 1, active: 0 });
    expect(s2.devices).toEqual(['all', 'desktop']);
    expect(s2.tags).toEqual(['Alpha', 'CHECKOUT', 'Gone soon']);

    const searched = testFacets(db, TestFilter.parse({ search: 'Test 1' }));
    expect(searched.statusCounts.active).toBe(1);
  });
});

describe('one goal, whatever its spelling, and campaigns told apart by store (issue 21, 9)', () => {
  it('offers a goal once across stores that spell it differently, and its filter matches every spelling', () => {
    const db = openTempDb();
    addStore(db, 's1', 'Acme');
    addStore(db, 's2', 'Nordic');
    upsertTests(db, {
      storeId: 's1',
      tests: [
        makeTest({
          n: 1,
          goal: 'click-through-rate',
          campaign: { id: uuid(1, 7), name: 'Spring' },
        }),
        makeTest({ n: 2, goal: 'conversion-rate' }),
      ],
      runId: 'run-1',
      syncedAt: NOW,
    });
    upsertTests(db, {
      storeId: 's2',
      tests: [
        makeTest({ n: 3, goal: 'clickThroughRate', campaign: { id: uuid(2, 7), name: 'Spring' } }),
        makeTest({ n: 4, goal: 'CLICK_THROUGH_RATE' }),
        makeTest({ n: 5, goal: 'Wishlist adds' }),
        makeTest({ n: 6, goal: 'wishlist-adds' }),
      ],
      runId: 'run-1',
      syncedAt: NOW,
    });
    const all = testFacets(db, TestFilter.parse({}));
    expect(all.goals).toEqual(['click-through-rate', 'conversion-rate', 'Wishlist adds']);
    for (const goal of ['clickThroughRate', 'click-through-rate']) {
      const filter = { goal };
      expect(listTests(db, TestListInput.parse(filter)).total).toBe(3);
      expect(testFacets(db, TestFilter.parse(filter)).statusCounts['active']).toBe(3);
    }
    expect(listTests(db, TestListInput.parse({ goal: 'wishlist-adds' })).total).toBe(2);
    // Two campaigns named alike in two stores: each with its store.
    expect(all.campaigns.map((c) => [c.name, c.storeName])).toEqual([
      ['Spring', 'Acme'],
      ['Spring', 'Nordic'],
    ]);
  });
});

describe('counts and facets kept while the data stands', () => {
  it('follows a write by this connection and a commit by another process at once', () => {
    const db = openTempDb();
    addStore(db, 's1');
    upsertTests(db, { storeId: 's1', tests: [makeTest({ n: 1 })], runId: 'r1', syncedAt: NOW });
    const all = TestListInput.parse({ storeId: 's1' });
    expect(listTests(db, all).total).toBe(1);
    expect(testFacets(db, all).statusCounts['active']).toBe(1);

    upsertTests(db, { storeId: 's1', tests: [makeTest({ n: 2 })], runId: 'r1', syncedAt: NOW });
    expect(listTests(db, all).total).toBe(2);
    expect(testFacets(db, all).statusCounts['active']).toBe(2);

    // Another connection stands for the CLI syncing while the window is open.
    const other = new Database(db.name);
    other.prepare(`UPDATE tests SET status = 'paused' WHERE id = ?`).run(makeTest({ n: 2 }).id);
    other.close();
    expect(testFacets(db, all).statusCounts['paused']).toBe(1);
    expect(listTests(db, { ...all, statuses: ['paused'] }).total).toBe(1);
  });
});
