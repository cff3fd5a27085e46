// The kept facet counts (migration 9): equal to a recount of tests through inserts, updates, removals and store deletion; facets read from them match the tests.
import { describe, expect, it } from 'vitest';
import { deleteStore } from '#core/db/cache/stores';
import { markMissingRemoved, upsertTests } from '#core/db/cache/tests';
import { listTests, testFacets } from '#core/db/cache/reads';
import { TestFilter, TestListInput, type TestFilterInput } from '#shared/contract/index';
import type { Db } from '#core/db/types';
import { addStore, makeTest, openTempDb, uuid } from './fixtures';

const NOW = '2026-03-01T10:00:00Z';
const STATUSES = ['active', 'paused', 'completed', 'draft'];
const GOALS = ['conversion', 'revenue', 'aov'];
const DEVICES = ['all', 'mobile', 'desktop'];
const STAGES = ['idea', 'build', 'review'];

function catalogue(from: number, count: number, shift = 0) {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return makeTest({
      n,
      status: STATUSES[(n + shift) % STATUSES.length],
      goal: GOALS[n % GOALS.length],
      device: DEVICES[(n >> 1) % DEVICES.length],
      stage: STAGES[(n >> 2) % STAGES.length],
      campaign:
        n % 3 === 0 ? null : { id: uuid(n % 5, 7), name: n % 7 === 0 ? null : `Campaign ${n % 5}` },
    });
  });
}

const kept = (db: Db) =>
  db
    .prepare(
      `SELECT store_id, removed, status, stage, goal, device, alerted, n FROM test_facet_counts
       ORDER BY 1, 2, 3, 4, 5, 6, 7`,
    )
    .all();
const recount = (db: Db) =>
  db
    .prepare(
      `SELECT store_id, removed, status, stage, goal, device, coalesce(alert_count, 0) > 0 AS alerted, count(*) AS n
       FROM tests GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7`,
    )
    .all();
const keptCampaigns = (db: Db) =>
  db
    .prepare(
      `SELECT store_id, removed, campaign_id, CASE WHEN named = 1 THEN name END AS name, n
       FROM test_campaign_counts ORDER BY 1, 2, 3, 4`,
    )
    .all();
const recountCampaigns = (db: Db) =>
  db
    .prepare(
      `SELECT store_id, removed, campaign_id, campaign_name AS name, count(*) AS n FROM tests
       WHERE campaign_id IS NOT NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    )
    .all();

function expectCountsRight(db: Db): void {
  expect(kept(db)).toEqual(recount(db));
  expect(keptCampaigns(db)).toEqual(recountCampaigns(db));
}

/** Facets as the tests themselves give them, by brute force over every row. */
function referenceFacets(db: Db, input: TestFilterInput) {
  const filter = TestFilter.parse(input);
  type Row = {
    store_id: string;
    removed: number;
    status: string;
    stage: string;
    goal: string;
    device: string;
    alert_count: number | null;
    campaign_id: string | null;
  };
  const rows = (db.prepare('SELECT * FROM tests').all() as Row[]).filter(
    (t) =>
      (filter.storeId === null || t.store_id === filter.storeId) &&
      (filter.includeRemoved || t.removed === 0),
  );
  const matches = (t: Row) =>
    (filter.stage === null || t.stage === filter.stage) &&
    (filter.goal === null || t.goal === filter.goal) &&
    (filter.device === null || t.device === filter.device) &&
    (!filter.hasAlerts || (t.alert_count ?? 0) > 0);
  const statusCounts: Record<string, number> = {};
  for (const t of rows.filter(matches)) statusCounts[t.status] = (statusCounts[t.status] ?? 0) + 1;
  const inStatuses = (t: Row) => filter.statuses.length === 0 || filter.statuses.includes(t.status);
  return {
    statusCounts,
    stages: [...new Set(rows.map((t) => t.stage))].sort(),
    goals: [...new Set(rows.map((t) => t.goal))].sort(),
    devices: [...new Set(rows.map((t) => t.device))].sort(),
    campaignIds: [...new Set(rows.flatMap((t) => (t.campaign_id ? [t.campaign_id] : [])))].sort(),
    withAlerts: rows.filter((t) => matches(t) && inStatuses(t) && (t.alert_count ?? 0) > 0).length,
    total: rows.filter((t) => matches(t) && inStatuses(t)).length,
  };
}

function expectFacetsRight(db: Db, input: TestFilterInput): void {
  const facets = testFacets(db, TestFilter.parse(input));
  const want = referenceFacets(db, input);
  const nonZero = Object.fromEntries(Object.entries(facets.statusCounts).filter(([, n]) => n > 0));
  expect(nonZero).toEqual(want.statusCounts);
  expect([...facets.stages].sort()).toEqual(want.stages);
  expect([...facets.goals].sort()).toEqual(want.goals);
  expect([...facets.devices].sort()).toEqual(want.devices);
  expect(facets.campaigns.map((c) => c.id).sort()).toEqual(want.campaignIds);
  expect(facets.withAlerts).toBe(want.withAlerts);
  expect(listTests(db, TestListInput.parse(input)).total).toBe(want.total);
}

const FILTERS: TestFilterInput[] = [
  {},
  { storeId: 's1' },
  { storeId: 's2', includeRemoved: true },
  { statuses: ['active', 'paused'], goal: 'revenue' },
  { hasAlerts: true },
  { storeId: 's1', stage: 'build', device: 'mobile', statuses: ['draft'] },
];

describe('kept facet counts', () => {
  it('stay equal to a recount through inserts, status changes, alerts, removals and store deletion', () => {
    const db = openTempDb();
    addStore(db, 's1');
    addStore(db, 's2');
    addStore(db, 's3');
    upsertTests(db, { storeId: 's1', tests: catalogue(1, 40), runId: 'r1', syncedAt: NOW });
    upsertTests(db, { storeId: 's2', tests: catalogue(1, 30), runId: 'r1', syncedAt: NOW });
    upsertTests(db, { storeId: 's3', tests: catalogue(100, 10), runId: 'r1', syncedAt: NOW });
    expectCountsRight(db);
    for (const filter of FILTERS) expectFacetsRight(db, filter);

    // A second listing: every status moves on, campaign names change, some tests are new.
    upsertTests(db, { storeId: 's1', tests: catalogue(1, 25, 1), runId: 'r2', syncedAt: NOW });
    upsertTests(db, { storeId: 's1', tests: catalogue(41, 5, 2), runId: 'r2', syncedAt: NOW });
    expectCountsRight(db);

    // A status change alone (as a local edit or another process writes it).
    db.prepare(
      `UPDATE tests SET status = 'completed' WHERE status = 'active' AND seq % 2 = 1`,
    ).run();
    expectCountsRight(db);

    // Alerts arrive with results (db/results.ts writes these two columns).
    db.prepare(`UPDATE tests SET alerts = '["srm"]', alert_count = 1 WHERE seq % 4 = 0`).run();
    db.prepare(`UPDATE tests SET alert_count = 0 WHERE seq % 8 = 0`).run();
    expectCountsRight(db);

    // The tests the second listing did not see are marked removed, then come back.
    expect(markMissingRemoved(db, 's1', 'r2')).toBe(15);
    expectCountsRight(db);
    for (const filter of [...FILTERS, { storeId: 's1', includeRemoved: true }])
      expectFacetsRight(db, filter);
    upsertTests(db, { storeId: 's1', tests: catalogue(30, 3), runId: 'r3', syncedAt: NOW });
    expectCountsRight(db);

    // A store's deletion cascades to its tests and so to its counts.
    expect(deleteStore(db, 's2')).toBe(true);
    expectCountsRight(db);
    expect(
      db.prepare(`SELECT count(*) AS n FROM test_facet_counts WHERE store_id = 's2'`).get(),
    ).toEqual({ n: 0 });
    expect(
      db.prepare(`SELECT count(*) AS n FROM test_campaign_counts WHERE store_id = 's2'`).get(),
    ).toEqual({ n: 0 });
    for (const filter of FILTERS) expectFacetsRight(db, filter);

    // Deleting a test row itself (no code path does it today; the trigger still must).
    db.prepare(`DELETE FROM tests WHERE store_id = 's3' AND seq % 2 = 0`).run();
    expectCountsRight(db);
    expect(kept(db).every((row) => (row as { n: number }).n > 0)).toBe(true);
  });

  it('facets with a search, tag or campaign still count from the tests', () => {
    const db = openTempDb();
    addStore(db, 's1');
    upsertTests(db, { storeId: 's1', tests: catalogue(1, 12), runId: 'r1', syncedAt: NOW });
    const searched = testFacets(db, TestFilter.parse({ search: 'Test 1' }));
    // Test 1, Test 10, Test 11, Test 12.
    expect(Object.values(searched.statusCounts).reduce((a, b) => a + b, 0)).toBe(4);
    const campaign = uuid(1, 7);
    const inCampaign = testFacets(db, TestFilter.parse({ campaignId: campaign }));
    const want = db
      .prepare(`SELECT count(*) AS n FROM tests WHERE campaign_id = ?`)
      .get(campaign) as { n: number };
    expect(Object.values(inCampaign.statusCounts).reduce((a, b) => a + b, 0)).toBe(want.n);
  });
});
