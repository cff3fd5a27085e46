// Data-quality alerts on test rows: written with the results, backfilled for older caches, filtered and listed.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { backfillAlerts, upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import { MIGRATIONS, migrate, schemaVersion } from '#core/db/cache/migrations/index';
import { openDatabase } from '#core/db/open';
import { listTests, testFacets } from '#core/db/cache/reads';
import type { Db } from '#core/db/types';
import { TestFilter, TestListInput } from '#shared/contract/index';
import { addStore, makeResults, makeTest, openTempDb, stats, tempDir } from './fixtures';

const NOW = '2026-02-03T10:00:00Z';

/** Side statistics whose rates follow from their counts (rates in percent, as the API sends them). */
function consistent(visitors: number, conversions: number) {
  const base = stats(visitors, conversions);
  const clicks = Math.round(visitors / 2);
  return {
    ...base,
    visits: visitors,
    clicks,
    cvr: (conversions / visitors) * 100,
    cnv: (conversions / visitors) * 100,
    ctr: (clicks / visitors) * 100,
    acr: ((conversions * 2) / visitors) * 100,
  };
}

/** Two days of 1,000 visitors a side, 3.0% against 3.3%, the API's probabilities near ours: no alert. */
function clean(testId: string) {
  const day = { performance: { control: consistent(500, 15), variant: consistent(500, 16) } };
  return makeResults(testId, {
    control: consistent(1000, 30),
    variant: consistent(1000, 32),
    controlProbabilityWin: 0.4,
    variantProbabilityWin: 0.6,
    lifecycle: {
      goal: 1,
      tier: 'learning',
      tierReachedAt: null,
      leadingVariant: null,
      probabilityToWin: 0.6,
      notYetStable: true,
    },
    daily: { '2026-02-01': day, '2026-02-02': day },
  });
}

/** 600 visitors against 400 at a configured 50/50: chi-square 40, p ≈ 2.5e-10, a planted mismatch. */
function mismatched(testId: string) {
  const day = (c: number, v: number) => ({
    performance: { control: consistent(c, 9), variant: consistent(v, 6) },
  });
  return makeResults(testId, {
    control: consistent(600, 18),
    variant: consistent(400, 12),
    totalVisitors: 1000,
    daily: { '2026-02-01': day(300, 200), '2026-02-02': day(300, 200) },
  });
}

function seed(db: Db, storeId: string, n: number, results: 'clean' | 'mismatch' | 'none') {
  const test = makeTest({ n, title: `Test ${n}`, startAt: '2026-02-01T08:00:00Z' });
  upsertTests(db, { storeId, tests: [test], runId: 'run-1', syncedAt: NOW });
  if (results === 'none') return test;
  upsertResults(db, {
    storeId,
    testId: test.id,
    results: results === 'clean' ? clean(test.id) : mismatched(test.id),
    fetchedAt: NOW,
    testUpdatedAt: test.updatedAt,
    testStatus: test.status,
  });
  return test;
}

function stored(db: Db, testId: string) {
  return db.prepare('SELECT alerts, alert_count AS count FROM tests WHERE id = ?').get(testId) as {
    alerts: string | null;
    count: number | null;
  };
}

describe('alerts on test rows', () => {
  it('are computed when results are written: the codes as JSON and their count', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const clean = seed(db, 's1', 1, 'clean');
    const planted = seed(db, 's1', 2, 'mismatch');
    const none = seed(db, 's1', 3, 'none');
    expect(stored(db, clean.id)).toEqual({ alerts: '[]', count: 0 });
    const row = stored(db, planted.id);
    expect(JSON.parse(row.alerts ?? 'null')).toContain('sample-ratio-mismatch');
    expect(row.count).toBe(JSON.parse(row.alerts ?? '[]').length);
    expect(stored(db, none.id)).toEqual({ alerts: null, count: null });
  });

  it('filter "has alerts" in SQL, in one store and across all stores, and the facets count them', () => {
    const db = openTempDb();
    addStore(db, 's1');
    addStore(db, 's2');
    seed(db, 's1', 1, 'clean');
    const a = seed(db, 's1', 2, 'mismatch');
    seed(db, 's1', 3, 'none');
    const b = seed(db, 's2', 4, 'mismatch');
    seed(db, 's2', 5, 'clean');

    const all = listTests(db, TestListInput.parse({ hasAlerts: true }));
    expect(all.rows.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    expect(all.total).toBe(2);
    expect(all.rows.every((r) => r.alerts?.includes('sample-ratio-mismatch'))).toBe(true);

    const one = listTests(db, TestListInput.parse({ storeId: 's1', hasAlerts: true }));
    expect(one.rows.map((r) => r.id)).toEqual([a.id]);

    const unfiltered = listTests(db, TestListInput.parse({ storeId: 's1' }));
    expect(unfiltered.total).toBe(3);
    const byId = new Map(unfiltered.rows.map((r) => [r.id, r.alerts]));
    expect(byId.get(a.id)).toContain('sample-ratio-mismatch');
    expect([...byId.values()].filter((v) => v === null)).toHaveLength(1);
    expect(byId.get(makeTest({ n: 1 }).id)).toEqual([]);

    expect(testFacets(db, TestFilter.parse({})).withAlerts).toBe(2);
    expect(testFacets(db, TestFilter.parse({ storeId: 's2' })).withAlerts).toBe(1);
    // The status chips count within the filter, "has alerts" included.
    expect(testFacets(db, TestFilter.parse({ hasAlerts: true })).statusCounts.active).toBe(2);
  });
});

describe('migration 7 and the backfill', () => {
  it('a cache from version 6 keeps its tests, with alerts NULL until computed', () => {
    const file = join(tempDir(), 'v6.db');
    const old = new Database(file);
    migrate(old, MIGRATIONS.slice(0, 6));
    old.close();
    const db = openDatabase(file);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    addStore(db, 's1');
    const test = seed(db, 's1', 1, 'none');
    expect(stored(db, test.id)).toEqual({ alerts: null, count: null });
    db.close();
  });

  it('fills rows with results but no alerts (a cache written before alerts), once, and leaves the rest', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const clean = seed(db, 's1', 1, 'clean');
    const planted = seed(db, 's1', 2, 'mismatch');
    const none = seed(db, 's1', 3, 'none');
    // What a cache migrated from version 6 holds: results cached, alerts not yet computed.
    db.exec('UPDATE tests SET alerts = NULL, alert_count = NULL');

    expect(backfillAlerts(db)).toBe(2);
    expect(stored(db, clean.id)).toEqual({ alerts: '[]', count: 0 });
    expect(JSON.parse(stored(db, planted.id).alerts ?? '[]')).toContain('sample-ratio-mismatch');
    expect(stored(db, none.id)).toEqual({ alerts: null, count: null });
    // Nothing left to do: the next start reads no rows.
    expect(backfillAlerts(db)).toBe(0);
  });

  it('is bounded: at most `limit` rows a call', () => {
    const db = openTempDb();
    addStore(db, 's1');
    for (let n = 1; n <= 5; n++) seed(db, 's1', n, 'clean');
    db.exec('UPDATE tests SET alerts = NULL, alert_count = NULL');
    expect(backfillAlerts(db, 3)).toBe(3);
    expect(backfillAlerts(db, 3)).toBe(2);
  });
});
