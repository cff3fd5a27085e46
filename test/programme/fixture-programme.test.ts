// A fixture programme in a real cache: two stores, each with eight flat tests, two losers and one huge
// winner — small at one store, large at the other. Win rate and velocity come out as counted by hand, and
// the winner's lift is shrunk toward its store's mean: between the two, closer to the mean when the test is small.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestResults } from '#shared/api/index';
import type { Learnings } from '#shared/contract/index';
import { median } from '#shared/domain/programme/index';
import { openDatabase } from '#core/db/open';
import { readDecision } from '#core/db/cache/decisions';
import { upsertResults } from '#core/decisions/results';
import { upsertTests } from '#core/db/cache/tests';
import type { Db } from '#core/db/types';
import type { Core } from '#core/types';
import { addStore, makeTest, tag } from '../db/fixtures';
import { shapedResults } from '../decisions/support';
import { startCore, tempDir } from '../support/core';

const NOW = Date.parse('2026-04-15T00:00:00Z');
const DAY_MS = 86_400_000;
const data = tempDir('splitbook-programme-fixture-');
let core: Core;
let n = 0;
const lookDays: Record<string, number[]> = { small: [], large: [] };
const starts = new Map<string, string>();
const TAGS = ['Copy', 'Pricing', 'Checkout'];

type Shape = { visitors: number; control: number; variant: number };

/** A completed conversion-rate test of `days` days from `start`, with results of that shape. */
function seed(
  db: Db,
  storeId: string,
  start: string,
  days: number,
  shape: Shape,
  extra: { tags?: string[]; surfaceArea?: string } = {},
): string {
  n += 1;
  const startAt = `${start}T00:00:00.000Z`;
  const test = makeTest({
    n,
    title: `Test ${n}`,
    status: 'completed',
    goal: 'conversion-rate',
    startAt,
    endAt: new Date(Date.parse(startAt) + days * DAY_MS).toISOString(),
    tags: (extra.tags ?? []).map((name) => tag(TAGS.indexOf(name) + 1, name)),
    surfaceArea: extra.surfaceArea ?? null,
    implemented: true,
  });
  starts.set(test.id, start);
  upsertTests(db, { storeId, tests: [test], runId: 'r', syncedAt: '2026-04-15T00:00:00Z' });
  const results: TestResults = shapedResults(test.id, { start, days, ...shape });
  upsertResults(db, {
    storeId,
    testId: test.id,
    results,
    fetchedAt: '2026-04-15T00:00:00Z',
    testUpdatedAt: test.updatedAt,
    testStatus: test.status,
  });
  return test.id;
}

/** Eight flat tests in January (lifts within ±2%), two clear losers in February, one huge winner in March. */
function programme(db: Db, storeId: string, winnerVisitors: number): { calls: (string | null)[] } {
  const flat = [0, 0.01, -0.01, 0.02, -0.02, 0.005, -0.005, 0.015];
  flat.forEach((lift) =>
    seed(
      db,
      storeId,
      '2026-01-05',
      14,
      { visitors: 100_000, control: 0.03, variant: 0.03 * (1 + lift) },
      { tags: ['Copy'], surfaceArea: 'product-page' },
    ),
  );
  seed(
    db,
    storeId,
    '2026-02-02',
    21,
    { visitors: 3000, control: 0.04, variant: 0.03 },
    { tags: ['Pricing'] },
  );
  seed(
    db,
    storeId,
    '2026-02-03',
    21,
    { visitors: 3000, control: 0.04, variant: 0.032 },
    { tags: ['Pricing', 'Copy'] },
  );
  seed(
    db,
    storeId,
    '2026-03-02',
    28,
    { visitors: winnerVisitors, control: 0.02, variant: 0.04 },
    { tags: ['Checkout'], surfaceArea: 'checkout' },
  );
  const rows = db
    .prepare('SELECT seq, decision FROM tests WHERE store_id = ? ORDER BY seq')
    .all(storeId) as { seq: number; decision: string | null }[];
  lookDays[storeId === 's1' ? 'small' : 'large'] = rows.map(
    (r) => readDecision(db, r.seq)?.look?.day ?? Number.NaN,
  );
  return { calls: rows.map((r) => r.decision) };
}

beforeAll(async () => {
  const db = openDatabase(join(data.path, 'splitbook.db'), {
    userDataFile: join(data.path, 'splitbook-user.db'),
  });
  addStore(db, 's1', 'Small winner');
  addStore(db, 's2', 'Large winner');
  const calls = [programme(db, 's1', 400).calls, programme(db, 's2', 4000).calls];
  db.close();
  for (const c of calls) {
    expect(c).toEqual([
      ...Array<string>(8).fill('no_difference'),
      'keep_control',
      'keep_control',
      'ship',
    ]);
  }
  core = await startCore(data.path, { clock: () => NOW });
});

afterAll(async () => {
  await core?.close();
  data.remove();
});

describe('a fixture programme', () => {
  let result: Learnings;
  beforeAll(async () => {
    result = await core.services.programme.learnings({ storeId: null, since: null, until: null });
  });

  it('counts win rate and no-difference rate by the calls, per store and across stores', () => {
    for (const store of result.stores) {
      expect(store.figures).toMatchObject({
        concluded: 11,
        ship: 1,
        keepControl: 2,
        noDifference: 8,
      });
      expect(store.figures.winRate).toBeCloseTo(1 / 11, 12);
      expect(store.figures.noDifferenceRate).toBeCloseTo(8 / 11, 12);
    }
    expect(result.figures).toMatchObject({
      concluded: 22,
      ship: 2,
      keepControl: 4,
      noDifference: 16,
    });
    expect(result.figures.byTag.find((b) => b.key === 'Pricing')).toMatchObject({
      concluded: 4,
      wins: 0,
      losses: 4,
      winRate: 0,
    });
    expect(result.figures.byTag.find((b) => b.key === 'Copy')).toMatchObject({
      concluded: 18,
      wins: 0,
      losses: 2,
      flat: 16,
    });
    expect(result.figures.bySurfaceArea.find((b) => b.key === 'checkout')).toMatchObject({
      concluded: 2,
      wins: 2,
      winRate: 1,
    });
  });

  it('measures velocity: concluded tests per month of the call, and the median day of the call', () => {
    expect(result.figures.perMonth).toEqual([
      { month: '2026-01', ship: 0, keepControl: 0, noDifference: 16 },
      { month: '2026-02', ship: 0, keepControl: 4, noDifference: 0 },
      { month: '2026-03', ship: 2, keepControl: 0, noDifference: 0 },
    ]);
    const days = [...(lookDays['small'] ?? []), ...(lookDays['large'] ?? [])];
    expect(result.figures.medianDaysToDecision).toBe(median(days));
    // No call before the minimum runtime (7 days), none after the longest run (28 days).
    for (const d of days) {
      expect(d).toBeGreaterThanOrEqual(7);
      expect(d).toBeLessThanOrEqual(28);
    }
    // A test's days to decision is the day of the call's data counted from its launch day (day 1).
    for (const t of result.tests) {
      expect(t.days).toBe(
        Math.round(
          (Date.parse(t.decidedOn ?? '') - Date.parse(starts.get(t.testId) ?? '')) / DAY_MS,
        ) + 1,
      );
    }
  });

  it('shrinks the huge winner toward its store’s mean: between the two, closer to the mean when the test is small', () => {
    const winner = (storeId: string) => result.impact.find((r) => r.storeId === storeId);
    const small = winner('s1');
    const large = winner('s2');
    expect(small && large).toBeTruthy();
    if (!small || !large) return;
    for (const [row, storeId] of [
      [small, 's1'],
      [large, 's2'],
    ] as const) {
      const mean = result.priors.find((p) => p.storeId === storeId)?.meanLift ?? Number.NaN;
      expect(row.rawLift).toBeGreaterThan(0.5);
      expect(Math.abs(mean)).toBeLessThan(0.05);
      expect(row.shrunkLift).toBeLessThan(row.rawLift);
      expect(row.shrunkLift).toBeGreaterThan(mean);
      expect(row.low).toBeLessThan(row.shrunkLift);
      expect(row.high).toBeGreaterThan(row.shrunkLift);
      expect(row.assumptions).toMatch(/^lift shrunk toward the mean of 11 concluded tests; /);
      expect(row.implemented).toBe(true);
    }
    // The small test keeps less of its own lift: its estimate moves further toward the mean.
    expect(small.weight).toBeLessThan(large.weight);
    const moved = (row: typeof small) => (row.rawLift - row.shrunkLift) / row.rawLift;
    expect(moved(small)).toBeGreaterThan(moved(large));
  });
});
