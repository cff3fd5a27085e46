// Writing a sync into the cache: raw JSON kept, idempotent upserts, removals, results, lists, set-aside records, cascades.
import { describe, expect, it } from 'vitest';
import {
  countSeenInRun,
  markMissingRemoved,
  markSeenInRun,
  upsertTests,
} from '#core/db/cache/tests';
import { replaceCampaigns } from '#core/db/cache/campaigns';
import { replaceCustomAudiences } from '#core/db/cache/audiences';
import { setAside } from '#core/db/cache/set-aside';
import { upsertResults } from '#core/decisions/results';
import {
  getResults,
  getTestDetail,
  listCampaigns,
  listAudiences,
  listSetAside,
  listTests,
} from '#core/db/cache/reads';
import { deleteStore, storeCounts } from '#core/db/cache/stores';
import { TestListInput } from '#shared/contract/index';
import { Test, TestResults } from '#shared/api/index';
import type { Db } from '#core/db/types';
import {
  addStore,
  customAudience,
  defaultAudience,
  item,
  makeCampaign,
  makeResults,
  makeTest,
  openTempDb,
  tag,
  uuid,
} from './fixtures';

const NOW = '2026-03-01T10:00:00Z';

function count(db: Db, table: string, storeId?: string): number {
  const where = storeId === undefined ? '' : ' WHERE store_id = ?';
  const args = storeId === undefined ? [] : [storeId];
  return (
    db
      .prepare<unknown[], number>(`SELECT count(*) FROM ${table}${where}`)
      .pluck()
      .get(...args) ?? 0
  );
}

/** Every table that holds rows of a store. */
function storeTables(db: Db): string[] {
  return db
    .prepare<[], string>(
      `SELECT m.name FROM sqlite_master m WHERE m.type = 'table'
       AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'store_id') ORDER BY m.name`,
    )
    .pluck()
    .all();
}

function ids(db: Db, filter: Partial<TestListInput> = {}): string[] {
  return listTests(db, TestListInput.parse({ limit: 2000, ...filter })).rows.map((row) => row.id);
}

function searchIndexIsConsistent(db: Db): void {
  // FTS5 raises an error when the index and the tests table disagree.
  db.exec(`INSERT INTO tests_fts (tests_fts) VALUES ('integrity-check')`);
}

describe('upsertTests', () => {
  it('keeps the raw record: unknown fields and unknown enum values survive the round trip', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const raw = {
      ...makeTest({ n: 1, tags: [tag(1, 'Checkout')] }),
      status: 'archived',
      stage: 'someday',
      experimentalFlag: { nested: [1, 2, 3] },
    };
    upsertTests(db, { storeId: 's1', tests: [Test.parse(raw)], runId: 'run-1', syncedAt: NOW });

    const detail = getTestDetail(db, 's1', raw.id);
    expect(detail?.test).toEqual(raw);
    expect(detail?.test.status).toBe('archived');
    expect(detail?.syncedAt).toBe(NOW);
    expect(detail?.removed).toBe(false);
    const [row] = listTests(db, TestListInput.parse({})).rows;
    expect(row).toMatchObject({
      id: raw.id,
      status: 'archived',
      stage: 'someday',
      tags: ['Checkout'],
    });
  });

  it('writes typed rows for tags and custom audiences, and keeps sides and default audiences in the raw record', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = makeTest({
      n: 1,
      tags: [tag(1, 'Mobile'), tag(2, 'Checkout')],
      customAudiences: [customAudience(1, 'EU buyers')],
      defaultAudiences: [defaultAudience(1, 'FR'), defaultAudience(2, 'DE')],
      variant: null,
    });
    upsertTests(db, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });

    expect(count(db, 'test_tags')).toBe(2);
    expect(count(db, 'tags')).toBe(2);
    expect(count(db, 'test_custom_audiences')).toBe(1);
    const detail = getTestDetail(db, 's1', test.id);
    expect(detail?.test.control).toMatchObject({ title: 'Original', traffic: 50 });
    expect(detail?.test.variant).toBeNull();
    expect(detail?.test.defaultAudiences.map((a) => a.id)).toEqual(
      test.defaultAudiences.map((a) => a.id),
    );
  });

  it('is idempotent: the same page twice leaves the same rows', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const page = [1, 2, 3].map((n) =>
      item(makeTest({ n, tags: [tag(n, `T${n}`)], defaultAudiences: [defaultAudience(1, 'FR')] })),
    );
    upsertTests(db, { storeId: 's1', tests: page, runId: 'run-1', syncedAt: NOW });
    const before = storeTables(db).map((table) => [table, count(db, table)]);
    upsertTests(db, { storeId: 's1', tests: page, runId: 'run-2', syncedAt: NOW });
    upsertTests(db, { storeId: 's1', tests: page, runId: 'run-2', syncedAt: NOW });
    expect(storeTables(db).map((table) => [table, count(db, table)])).toEqual(before);
    expect(count(db, 'tests_raw')).toBe(3);
    expect(count(db, 'tests_fts_docsize')).toBe(3);
    searchIndexIsConsistent(db);
  });

  it('replaces a changed test: its tags and search text follow the new version, its results stay', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const first = makeTest({
      n: 1,
      title: 'Free shipping bar',
      tags: [tag(1, 'Old'), tag(2, 'Kept')],
    });
    upsertTests(db, { storeId: 's1', tests: [first], runId: 'run-1', syncedAt: NOW });
    upsertResults(db, {
      storeId: 's1',
      testId: first.id,
      results: makeResults(first.id),
      fetchedAt: NOW,
      testUpdatedAt: first.updatedAt,
      testStatus: first.status,
    });

    const second = {
      ...first,
      title: 'Sticky add to cart',
      tags: [tag(2, 'Kept')],
      updatedAt: '2026-02-10T00:00:00Z',
    };
    upsertTests(db, { storeId: 's1', tests: [second], runId: 'run-2', syncedAt: NOW });

    expect(listTests(db, TestListInput.parse({})).rows[0]?.tags).toEqual(['Kept']);
    expect(ids(db, { search: 'ship' })).toEqual([]);
    expect(ids(db, { search: 'sticky' })).toEqual([first.id]);
    expect(getResults(db, 's1', first.id)).not.toBeNull();
    expect(listTests(db, TestListInput.parse({})).rows[0]?.probabilityToWin).toBe(0.81);
    expect(listTests(db, TestListInput.parse({})).rows[0]?.tier).toBe(
      makeResults(first.id).lifecycle.tier,
    );
    searchIndexIsConsistent(db);
  });

  it('clears the set-aside record of a test that now validates', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = makeTest({ n: 1 });
    setAside(db, {
      storeId: 's1',
      resource: 'test',
      recordId: test.id,
      error: 'title: expected string',
      raw: { id: test.id },
      seenAt: NOW,
    });
    expect(storeCounts(db, 's1').setAside).toBe(1);
    upsertTests(db, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });
    expect(storeCounts(db, 's1').setAside).toBe(0);
  });
});

describe('markMissingRemoved', () => {
  it('marks the tests a complete listing did not return, and un-marks them when they come back', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const [a, b, c] = [1, 2, 3].map((n) => makeTest({ n }));
    if (!a || !b || !c) throw new Error('fixtures');
    upsertTests(db, { storeId: 's1', tests: [a, b, c], runId: 'run-1', syncedAt: NOW });
    expect(markMissingRemoved(db, 's1', 'run-1')).toBe(0);

    upsertTests(db, { storeId: 's1', tests: [a, c], runId: 'run-2', syncedAt: NOW });
    expect(markMissingRemoved(db, 's1', 'run-2')).toBe(1);
    expect(markMissingRemoved(db, 's1', 'run-2')).toBe(0); // already marked
    expect(ids(db)).not.toContain(b.id);
    const all = listTests(db, TestListInput.parse({ includeRemoved: true })).rows;
    expect(all.find((row) => row.id === b.id)?.removed).toBe(true);
    expect(getTestDetail(db, 's1', b.id)?.removed).toBe(true);
    expect(storeCounts(db, 's1')).toEqual({ tests: 2, removed: 1, setAside: 0 });

    upsertTests(db, { storeId: 's1', tests: [a, b, c], runId: 'run-3', syncedAt: NOW });
    expect(markMissingRemoved(db, 's1', 'run-3')).toBe(0);
    expect(ids(db)).toContain(b.id);
  });

  it('touches only the given store', () => {
    const db = openTempDb();
    addStore(db, 's1');
    addStore(db, 's2');
    upsertTests(db, { storeId: 's1', tests: [makeTest({ n: 1 })], runId: 'run-1', syncedAt: NOW });
    upsertTests(db, {
      storeId: 's2',
      tests: [makeTest({ n: 2 })],
      runId: 'run-other',
      syncedAt: NOW,
    });
    expect(markMissingRemoved(db, 's1', 'run-1')).toBe(0);
    expect(storeCounts(db, 's2').removed).toBe(0);
  });

  it('does not remove a listed test that was set aside, and forgets set-aside tests a later listing no longer holds', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const good = makeTest({ n: 1 });
    const turnedBad = makeTest({ n: 2 });
    upsertTests(db, { storeId: 's1', tests: [good, turnedBad], runId: 'run-1', syncedAt: NOW });

    // Run 2 lists both, but the second no longer validates; a third, new record is bad too.
    upsertTests(db, { storeId: 's1', tests: [good], runId: 'run-2', syncedAt: NOW });
    setAside(db, {
      storeId: 's1',
      resource: 'test',
      recordId: turnedBad.id,
      error: 'status: expected string',
      raw: { id: turnedBad.id },
      seenAt: NOW,
    });
    setAside(db, {
      storeId: 's1',
      resource: 'test',
      recordId: uuid(99, 1),
      error: 'title: required',
      raw: { id: uuid(99, 1) },
      seenAt: NOW,
    });
    markSeenInRun(db, { storeId: 's1', testIds: [turnedBad.id, uuid(99, 1)], runId: 'run-2' });
    expect(countSeenInRun(db, 's1', 'run-2')).toBe(3);
    expect(markMissingRemoved(db, 's1', 'run-2')).toBe(0);
    expect(getTestDetail(db, 's1', turnedBad.id)?.test.title).toBe(turnedBad.title); // last good version kept
    expect(listSetAside(db, 's1')).toHaveLength(2);

    // Run 3: the bad new record is gone from the server, the other validates again.
    upsertTests(db, { storeId: 's1', tests: [good, turnedBad], runId: 'run-3', syncedAt: NOW });
    expect(countSeenInRun(db, 's1', 'run-3')).toBe(2);
    expect(markMissingRemoved(db, 's1', 'run-3')).toBe(0);
    expect(listSetAside(db, 's1')).toEqual([]);
  });

  it('keeps a set-aside test no run claimed, since nothing tells whether it is stale', () => {
    const db = openTempDb();
    addStore(db, 's1');
    setAside(db, {
      storeId: 's1',
      resource: 'test',
      recordId: null,
      error: 'id: expected a UUID',
      raw: { id: 42 },
      seenAt: NOW,
    });
    markMissingRemoved(db, 's1', 'run-1');
    expect(listSetAside(db, 's1')).toEqual([
      {
        storeId: 's1',
        resource: 'test',
        recordId: null,
        error: 'id: expected a UUID',
        seenAt: NOW,
      },
    ]);
  });

  it('counts a test set aside with the run id as seen, without markSeenInRun', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = makeTest({ n: 1 });
    upsertTests(db, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });
    setAside(db, {
      storeId: 's1',
      resource: 'test',
      recordId: test.id,
      error: 'bad',
      raw: {},
      seenAt: NOW,
      runId: 'run-2',
    });
    expect(markMissingRemoved(db, 's1', 'run-2')).toBe(0);
    expect(countSeenInRun(db, 's1', 'run-2')).toBe(1);
  });
});

describe('upsertResults', () => {
  function seed(db: Db) {
    addStore(db, 's1');
    const test = makeTest({ n: 1 });
    upsertTests(db, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });
    return test;
  }

  it('keeps the raw results, sides, segments, days and lifecycles included, and copies the list figures to the test', () => {
    const db = openTempDb();
    const test = seed(db);
    const raw = { ...makeResults(test.id), status: 'archived', newMetric: { value: 3 } };
    upsertResults(db, {
      storeId: 's1',
      testId: test.id,
      results: TestResults.parse(raw),
      fetchedAt: NOW,
      testUpdatedAt: test.updatedAt,
      testStatus: test.status,
    });

    const detail = getResults(db, 's1', test.id);
    expect(detail).toEqual({ storeId: 's1', testId: test.id, results: raw, fetchedAt: NOW });
    expect(
      db
        .prepare(`SELECT tier, probability_to_win AS p, not_yet_stable AS unstable FROM results`)
        .get(),
    ).toEqual({
      tier: 'emerging',
      p: 0.81,
      unstable: 1,
    });
    expect(listTests(db, TestListInput.parse({})).rows[0]).toMatchObject({
      probabilityToWin: 0.81,
      lift: 0.2,
      visitors: 2000,
    });
    expect(getTestDetail(db, 's1', test.id)?.resultsSyncedAt).toBe(NOW);
  });

  it('replaces the previous results whole: nothing of them lingers', () => {
    const db = openTempDb();
    const test = seed(db);
    const first = makeResults(test.id);
    upsertResults(db, {
      storeId: 's1',
      testId: test.id,
      results: first,
      fetchedAt: NOW,
      testUpdatedAt: test.updatedAt,
      testStatus: test.status,
    });
    const second = makeResults(test.id, {
      daily: {},
      lifecycleByGoal: {},
      variantProbabilityWin: 0.4,
      lift: -0.1,
      totalVisitors: 5000,
    });
    upsertResults(db, {
      storeId: 's1',
      testId: test.id,
      results: second,
      fetchedAt: '2026-03-02T00:00:00Z',
      testUpdatedAt: test.updatedAt,
      testStatus: test.status,
    });
    expect(count(db, 'results')).toBe(1);
    expect(count(db, 'results_raw')).toBe(1);
    const cached = getResults(db, 's1', test.id)?.results;
    expect(cached?.daily).toEqual({});
    expect(cached?.lifecycleByGoal).toEqual({});
    expect(listTests(db, TestListInput.parse({})).rows[0]).toMatchObject({
      probabilityToWin: 0.4,
      lift: -0.1,
      visitors: 5000,
    });
  });

  it('clears the set-aside record of results that now validate', () => {
    const db = openTempDb();
    const test = seed(db);
    setAside(db, {
      storeId: 's1',
      resource: 'results',
      recordId: test.id,
      error: 'lift: expected number',
      raw: null,
      seenAt: NOW,
    });
    const results = makeResults(test.id);
    upsertResults(db, {
      storeId: 's1',
      testId: test.id,
      results: results,
      fetchedAt: NOW,
      testUpdatedAt: test.updatedAt,
      testStatus: test.status,
    });
    expect(listSetAside(db, 's1')).toEqual([]);
  });
});

describe('replaceCampaigns and replaceCustomAudiences', () => {
  it('replace the whole list of the store and keep the raw records', () => {
    const db = openTempDb();
    addStore(db, 's1');
    addStore(db, 's2');
    const spring = { ...makeCampaign(1, 'Spring'), launchedBy: 'ana' };
    replaceCampaigns(db, {
      storeId: 's1',
      campaigns: [spring, makeCampaign(2, 'Summer')],
      syncedAt: NOW,
    });
    replaceCampaigns(db, {
      storeId: 's2',
      campaigns: [makeCampaign(3, 'Other')],
      syncedAt: NOW,
    });
    replaceCampaigns(db, { storeId: 's1', campaigns: [spring], syncedAt: NOW });

    expect(listCampaigns(db, 's1').map((row) => row.campaign)).toEqual([spring]);
    expect(listCampaigns(db, null)).toHaveLength(2);

    const eu = customAudience(1, 'EU buyers');
    replaceCustomAudiences(db, {
      storeId: 's1',
      audiences: [eu, customAudience(2, 'VIP')],
      syncedAt: NOW,
    });
    replaceCustomAudiences(db, { storeId: 's1', audiences: [eu], syncedAt: NOW });
    expect(listAudiences(db, 's1').map((row) => row.audience)).toEqual([eu]);
  });

  it('an empty list empties the store', () => {
    const db = openTempDb();
    addStore(db, 's1');
    replaceCampaigns(db, {
      storeId: 's1',
      campaigns: [makeCampaign(1, 'Spring')],
      syncedAt: NOW,
    });
    replaceCampaigns(db, { storeId: 's1', campaigns: [], syncedAt: NOW });
    expect(listCampaigns(db, 's1')).toEqual([]);
  });
});

describe('deleteStore', () => {
  it('removes every row of the store from every table, the search index included, and nothing else', () => {
    const db = openTempDb();
    for (const storeId of ['s1', 's2']) {
      addStore(db, storeId);
      const offset = storeId === 's1' ? 0 : 100;
      const tests = [1, 2, 3].map((n) =>
        makeTest({
          n: n + offset,
          title: `Free shipping ${n}`,
          tags: [tag(n, 'Checkout')],
          customAudiences: [customAudience(1, 'EU')],
          defaultAudiences: [defaultAudience(1, 'FR')],
          campaign: { id: uuid(1, 7), name: 'Spring' },
        }),
      );
      upsertTests(db, { storeId: storeId, tests: tests, runId: 'run-1', syncedAt: NOW });
      for (const test of tests) {
        const results = makeResults(test.id);
        upsertResults(db, {
          storeId: storeId,
          testId: test.id,
          results: results,
          fetchedAt: NOW,
          testUpdatedAt: test.updatedAt,
          testStatus: test.status,
        });
      }
      replaceCampaigns(db, {
        storeId: storeId,
        campaigns: [makeCampaign(1, 'Spring')],
        syncedAt: NOW,
      });
      replaceCustomAudiences(db, {
        storeId: storeId,
        audiences: [customAudience(1, 'EU')],
        syncedAt: NOW,
      });
      setAside(db, {
        storeId: storeId,
        resource: 'campaign',
        recordId: null,
        error: 'bad',
        raw: {},
        seenAt: NOW,
      });
      db.prepare(`INSERT INTO sync_state VALUES (?, 'r', 'tests', 2, ?, ?)`).run(storeId, NOW, NOW);
      db.prepare(`INSERT INTO resource_syncs VALUES (?, 'tests', ?)`).run(storeId, NOW);
    }
    const tables = storeTables(db);
    const s2Before = tables.map((table) => [table, count(db, table, 's2')]);
    for (const table of tables) expect(count(db, table, 's1'), table).toBeGreaterThan(0);

    expect(deleteStore(db, 's1')).toBe(true);

    for (const table of tables) expect(count(db, table, 's1'), table).toBe(0);
    expect(count(db, 'stores')).toBe(1);
    expect(tables.map((table) => [table, count(db, table, 's2')])).toEqual(s2Before);
    expect(count(db, 'tests_raw')).toBe(3); // keyed by the test's seq, not by store
    expect(count(db, 'tests_fts_docsize')).toBe(3);
    searchIndexIsConsistent(db);
    expect(ids(db, { search: 'shipping' })).toHaveLength(3);
    expect(deleteStore(db, 's1')).toBe(false);
  });
});
