// Portfolio figures against a hand-computed fixture of three stores, and the `portfolio` report's rows.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Test, TestResults } from '#shared/api/index';
import { openDatabase } from '#core/db/open';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import { portfolio, portfolioReport } from '#core/review/portfolio';
import { addStore, makeResults, makeTest, tag, tempDir } from '../db/fixtures';
import { SHAPES, shapedResults } from '../decisions/support';

const NOW = Date.parse('2026-06-15T00:00:00Z');

function fixture(): Db {
  const db = openDatabase(join(tempDir(), 'cache.db'), {
    userDataFile: join(tempDir(), 'user.db'),
  });
  addStore(db, 'a', 'Alpha');
  addStore(db, 'b', 'Beta');
  addStore(db, 'c', 'Gamma');
  const write = (storeId: string, tests: [Test, Partial<TestResults> | null][]) => {
    upsertTests(db, {
      storeId,
      tests: tests.map(([t]) => t),
      runId: 'r',
      syncedAt: '2026-06-15T00:00:00Z',
    });
    for (const [test, results] of tests) {
      if (results === null) continue;
      upsertResults(db, {
        storeId,
        testId: test.id,
        results: makeResults(test.id, results),
        fetchedAt: '2026-06-15T00:00:00Z',
        testUpdatedAt: test.updatedAt,
        testStatus: test.status,
      });
    }
  };
  const ended = (n: number, start: string, end: string, extra: Partial<Test> = {}) =>
    makeTest({
      n,
      status: 'completed',
      goal: 'conversion-rate',
      startAt: start,
      endAt: end,
      ...extra,
    });
  const life = (tier: string, leadingVariant: string | null) => ({
    goal: 1,
    tier,
    tierReachedAt: null,
    leadingVariant,
    probabilityToWin: 0.97,
    notYetStable: false,
  });
  // Outcomes are Splitbook's calls: results shaped to give each call (test/decisions/support.ts).
  const shaped =
    (shape: (typeof SHAPES)[keyof typeof SHAPES]) =>
    (n: number, start: string, days: number, fields: Partial<TestResults>) =>
      shapedResults(makeTest({ n }).id, { start, days, ...shape }, fields);
  const won = shaped(SHAPES.ship);
  const lost = shaped(SHAPES.keepControl);
  write('a', [
    // won: 10 days, +500
    [
      ended(1, '2026-05-01T00:00:00Z', '2026-05-11T00:00:00Z', {
        surfaceArea: 'checkout',
        tags: [tag(1, 'Pricing')],
      }),
      won(1, '2026-05-01', 10, { changeRevenue: 500, lifecycle: life('significant', 'variant') }),
    ],
    // won: 20 days, +250
    [
      ended(2, '2026-04-01T00:00:00Z', '2026-04-21T00:00:00Z', { surfaceArea: 'checkout' }),
      won(2, '2026-04-01', 20, { changeRevenue: 250, lifecycle: life('significant', 'variant') }),
    ],
    // lost: 30 days; its revenue is not a winner's
    [
      ended(3, '2026-04-10T00:00:00Z', '2026-05-10T00:00:00Z', { tags: [tag(1, 'Pricing')] }),
      lost(3, '2026-04-10', 30, { changeRevenue: -90, lifecycle: life('significant', 'control') }),
    ],
    [
      makeTest({ n: 4, status: 'active', startAt: '2026-06-01T00:00:00Z' }),
      { lifecycle: life('emerging', 'variant') },
    ],
    [makeTest({ n: 5, status: 'draft' }), null],
  ]);
  write('b', [
    // inconclusive (cancelled, emerging): 5 days
    [
      makeTest({
        n: 11,
        status: 'cancelled',
        startAt: '2026-06-01T00:00:00Z',
        endAt: '2026-06-06T00:00:00Z',
      }),
      { changeRevenue: 70, lifecycle: life('emerging', 'variant') },
    ],
    // ended 120 days ago: outside the window
    [
      ended(12, '2026-01-01T00:00:00Z', '2026-02-15T00:00:00Z'),
      { lifecycle: life('significant', 'variant') },
    ],
    [
      makeTest({
        n: 13,
        status: 'active',
        startAt: '2026-05-20T00:00:00Z',
        tags: [tag(2, 'pricing')],
      }),
      null,
    ],
    [makeTest({ n: 14, status: 'paused', startAt: '2026-05-21T00:00:00Z' }), null],
  ]);
  // Gamma: nothing yet.
  return db;
}

describe('the portfolio', () => {
  it('matches the hand-computed figures per store and across stores', () => {
    const db = fixture();
    const p = portfolio(db, NOW);
    const [a, b, c] = p.stores;
    expect(a).toMatchObject({
      storeName: 'Alpha',
      tests: 5,
      running: 1,
      ended: { won: 2, lost: 1, flat: 0, inconclusive: 0, total: 3 },
      winRate: 2 / 3,
      medianDurationDays: 20,
      winnersChangeRevenue: 750,
    });
    expect(a?.byStatus).toEqual([
      { key: 'completed', label: 'completed', count: 3 },
      { key: 'active', label: 'active', count: 1 },
      { key: 'draft', label: 'draft', count: 1 },
    ]);
    expect(a?.bySurfaceArea.find((s) => s.key === 'checkout')?.count).toBe(2);
    expect(a?.byTag).toEqual([{ key: 'pricing', label: 'Pricing', count: 2 }]);
    expect(a?.startedPerMonth.filter((m) => m.count > 0)).toEqual([
      { month: '2026-04', count: 2 },
      { month: '2026-05', count: 1 },
      { month: '2026-06', count: 1 },
    ]);
    expect(b).toMatchObject({
      tests: 4,
      running: 1,
      ended: { won: 0, lost: 0, flat: 0, inconclusive: 1, total: 1 },
      // Nothing concluded: the Learnings' win rate (recommended to ship ÷ concluded) has none.
      winRate: null,
      medianDurationDays: 5,
      winnersChangeRevenue: 0,
    });
    expect(c).toMatchObject({ tests: 0, running: 0, winRate: null, medianDurationDays: null });
    expect(p.total).toMatchObject({
      storeId: null,
      tests: 9,
      running: 2,
      ended: { won: 2, lost: 1, flat: 0, inconclusive: 1, total: 4 },
      winRate: 2 / 3,
      // durations 5, 10, 20, 30
      medianDurationDays: 15,
      winnersChangeRevenue: null,
    });
    // Tags count case-insensitively across stores.
    expect(p.total.byTag).toEqual([{ key: 'pricing', label: 'Pricing', count: 3 }]);
    db.close();
  });

  it('reports one row per store and a total row', () => {
    const db = fixture();
    const rows = [...portfolioReport(db, NOW)];
    expect(rows[0]).toEqual([
      'store_id',
      'store',
      'tests',
      'running',
      'counted_90d',
      'won',
      'lost',
      'inconclusive',
      'win_rate',
      'median_duration_days',
      'winners_change_revenue',
      'flat',
    ]);
    expect(rows.slice(1)).toEqual([
      ['a', 'Alpha', 5, 1, 3, 2, 1, 0, 0.6667, 20, 750, 0],
      ['b', 'Beta', 4, 1, 1, 0, 0, 1, null, 5, 0, 0],
      ['c', 'Gamma', 0, 0, 0, 0, 0, 0, null, null, 0, 0],
      ['', 'All stores', 9, 2, 4, 2, 1, 1, 0.6667, 15, null, 0],
    ]);
    db.close();
  });

  it('names a count after the first test that has it, rows read by store, then status, then as cached', () => {
    const db = openDatabase(join(tempDir(), 'cache.db'), {
      userDataFile: join(tempDir(), 'user.db'),
    });
    addStore(db, 'z', 'Zulu');
    addStore(db, 'y', 'Yankee');
    const upsert = (storeId: string, tests: Test[]) =>
      upsertTests(db, { storeId, tests, runId: 'r', syncedAt: '2026-06-15T00:00:00Z' });
    // Cached first but paused: the active test of the same store comes before it.
    upsert('z', [
      makeTest({ n: 31, status: 'paused', tags: [tag(5, 'Mobile')] }),
      makeTest({ n: 32, status: 'active', tags: [tag(6, 'MOBILE')] }),
    ]);
    upsert('y', [makeTest({ n: 33, status: 'active', tags: [tag(7, 'mobile')] })]);
    const p = portfolio(db, NOW);
    // Store y's rows come before store z's (by id, whatever the stores' own order).
    expect(p.total.byTag).toEqual([{ key: 'mobile', label: 'mobile', count: 3 }]);
    expect(p.stores.find((s) => s.storeId === 'z')?.byTag).toEqual([
      { key: 'mobile', label: 'MOBILE', count: 2 },
    ]);
    db.close();
  });
});
