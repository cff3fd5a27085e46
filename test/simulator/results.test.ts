// Results are internally consistent: rates are ratios of counts, segments and days add up, probabilities
// sum to 1, and live tests gain a day of data per simulated day.
import { describe, expect, it } from 'vitest';
import type { SideStatistics, Test, TestResults } from '#shared/api/index';
import { isEnded, isLaunched, isLive } from '#shared/domain/lifecycle';
import { createSimulator, METRICS, metricOfGoal } from '#simulator/index';
import { normalCdf } from '#simulator/statistics';
import { NOW } from './support';

const COUNTS = [
  'visitors',
  'visits',
  'clicks',
  'carts',
  'conversions',
  'orders',
  'totalOrders',
  'totalConversions',
  'initialSubscriptionConversions',
  'initialSubscriptionOrders',
] as const;
const MONEY = ['revenue', 'totalRevenue', 'initialSubscriptionRevenue'] as const;

const ratio = (numerator: number, denominator: number) =>
  denominator === 0 ? 0 : numerator / denominator;

function expectRatesAreRatios(side: SideStatistics): void {
  expect(side.cvr).toBeCloseTo(ratio(side.conversions, side.visitors) * 100, 9);
  expect(side.cnv).toBeCloseTo(ratio(side.conversions, side.visits) * 100, 9);
  expect(side.ctr).toBeCloseTo(ratio(side.clicks, side.visits) * 100, 9);
  expect(side.acr).toBeCloseTo(ratio(side.carts, side.visitors) * 100, 9);
  expect(side.aov).toBeCloseTo(ratio(side.revenue, side.orders), 9);
  expect(side.rpv).toBeCloseTo(ratio(side.revenue, side.visitors), 9);
  expect(side.rps).toBe(side.rpv);
  expect(side.conversions).toBeLessThanOrEqual(side.orders);
  expect(side.carts).toBeLessThanOrEqual(side.visitors);
  expect(side.revenue).toBeLessThanOrEqual(side.totalRevenue);
}

function expectSumsTo(parts: SideStatistics[], whole: SideStatistics): void {
  for (const key of COUNTS)
    expect(parts.reduce((sum, part) => sum + part[key], 0)).toBe(whole[key]);
  for (const key of MONEY)
    expect(parts.reduce((sum, part) => sum + part[key], 0)).toBeCloseTo(whole[key], 6);
}

/** mobile + desktop = side and new + returning = side; a segment the test does not reach is null. */
function expectSegmentsAddUp(side: SideStatistics): void {
  for (const [a, b] of [
    ['mobile', 'desktop'],
    ['new', 'returning'],
  ] as const) {
    const parts = [side[a], side[b]].filter((part): part is SideStatistics => part !== null);
    expect(parts.length).toBeGreaterThan(0);
    expectSumsTo(parts, side);
    for (const part of parts) {
      expectRatesAreRatios(part);
      expect([part.mobile, part.desktop, part.new, part.returning]).toEqual([
        null,
        null,
        null,
        null,
      ]);
    }
  }
}

function dayKeys(from: string, to: string): string[] {
  const keys: string[] = [];
  for (
    let day = Date.parse(from.slice(0, 10));
    day <= Date.parse(to.slice(0, 10));
    day += 86_400_000
  ) {
    keys.push(new Date(day).toISOString().slice(0, 10));
  }
  return keys;
}

describe('results of every launched test', () => {
  const sim = createSimulator({ now: () => NOW, stores: [{ name: 'Shop', tests: 400 }] });
  const launched = sim.snapshot('Shop').tests.filter((test) => isLaunched(test.status));
  const all = launched.map((test) => {
    const results = sim.results('Shop', test.id);
    if (results === null) throw new Error(`No results for launched test ${test.id}`);
    return { test, results };
  });

  it('have rates that are the ratios of their counts (percent for rates, currency for money)', () => {
    for (const { results } of all) {
      expectRatesAreRatios(results.control);
      expectRatesAreRatios(results.variant);
    }
  });

  it('have segments that add up to their side', () => {
    for (const { results } of all) {
      expectSegmentsAddUp(results.control);
      expectSegmentsAddUp(results.variant);
    }
  });

  it('have a daily series, one key per day from start to end (or the pause, or today), adding up to the totals', () => {
    for (const { test, results } of all) {
      const halted = test.status === 'paused' || test.status === 'suspended';
      const last = isEnded(test.status)
        ? (test.endAt ?? '')
        : halted
          ? test.updatedAt
          : new Date(NOW).toISOString();
      expect(Object.keys(results.daily)).toEqual(dayKeys(test.startAt ?? '', last));
      const days = Object.values(results.daily);
      expectSumsTo(
        days.map((day) => day.performance.control),
        results.control,
      );
      expectSumsTo(
        days.map((day) => day.performance.variant),
        results.variant,
      );
      for (const day of days) expectRatesAreRatios(day.performance.variant);
    }
  });

  it('have win probabilities that sum to 1 and a lift that is the goal metric’s relative change', () => {
    for (const { test, results } of all) {
      expect(results.controlProbabilityWin + results.variantProbabilityWin).toBeCloseTo(1, 12);
      expect(results.variantProbabilityWin).toBeGreaterThanOrEqual(0);
      expect(results.variantProbabilityWin).toBeLessThanOrEqual(1);
      const metric = metricOfGoal(test.goal);
      const control = results.control[metric.rate];
      const expected =
        control === 0 ? 0 : ((results.variant[metric.rate] - control) / control) * 100;
      expect(results.lift).toBeCloseTo(expected, 9);
      expect(Object.keys(results.liftByMetric)).toEqual(METRICS.map((each) => String(each.id)));
      expect(results.liftByMetric[metric.id]?.value).toBe(results.lift);
      expect(results.changeRevenue).toBeCloseTo(
        (results.variant.rpv - results.control.rpv) * results.variant.visitors,
        6,
      );
    }
  });

  it('have a lifecycle per goal, the test’s own goal being the headline one', () => {
    for (const { test, results } of all) {
      const metric = metricOfGoal(test.goal);
      expect(results.lifecycle).toEqual(results.lifecycleByGoal[metric.id]);
      expect(Object.keys(results.lifecycleByGoal)).toEqual(METRICS.map((each) => String(each.id)));
      const { lifecycle } = results;
      expect(lifecycle.probabilityToWin).toBeCloseTo(
        Math.max(results.controlProbabilityWin, results.variantProbabilityWin),
        12,
      );
      if (lifecycle.leadingVariant === 'variant')
        expect(results.variantProbabilityWin).toBeGreaterThan(0.5);
      if (lifecycle.leadingVariant === 'control')
        expect(results.controlProbabilityWin).toBeGreaterThan(0.5);
      const smallerSide = Math.min(results.control.visitors, results.variant.visitors);
      if (smallerSide < 1000)
        expect(lifecycle).toMatchObject({
          tier: 'learning',
          notYetStable: true,
          tierReachedAt: null,
        });
      if (lifecycle.tier === 'significant')
        expect(lifecycle.probabilityToWin).toBeGreaterThanOrEqual(0.95);
      if (lifecycle.tierReachedAt !== null)
        expect(results.daily[lifecycle.tierReachedAt]).toBeDefined();
      expect(results.winner).toBe(
        lifecycle.tier === 'significant' ? lifecycle.leadingVariant : null,
      );
    }
    const tiers = new Set(all.map(({ results }) => results.lifecycle.tier));
    expect(tiers).toEqual(new Set(['learning', 'emerging', 'significant', 'inconclusive']));
  });

  it('carry the deprecated fields as the spec says', () => {
    for (const { test, results } of all) {
      expect(results.totalVisitors).toBe(results.control.visitors + results.variant.visitors);
      expect(results.totalSessions).toBe(results.totalVisitors);
      expect(results.hasSufficientSamples).toBe(false);
      expect(results.progress).toBe(0);
      expect(results.controlSplit).toBe(test.control.traffic);
      expect(results.variantSplit).toBe(test.variant?.traffic);
      expect(results.id).toBe(test.id);
      expect(results.status).toBe(test.status);
    }
    expect(all.some(({ results }) => results.bayesianModelStatus === null)).toBe(true);
    expect(all.some(({ results }) => typeof results.bayesianModelStatus === 'string')).toBe(true);
  });
});

describe('live tests', () => {
  function firstWith(sim: ReturnType<typeof createSimulator>, keep: (test: Test) => boolean): Test {
    const test = sim.snapshot('Shop').tests.find(keep);
    if (test === undefined) throw new Error('no such test');
    return test;
  }
  const resultsOf = (sim: ReturnType<typeof createSimulator>, id: string): TestResults => {
    const results = sim.results('Shop', id);
    if (results === null) throw new Error('no results');
    return results;
  };

  it('gain a day of data per simulated day, and their past days stay as they were', () => {
    const sim = createSimulator({ now: () => NOW, stores: [{ name: 'Shop', tests: 100 }] });
    const test = firstWith(sim, (each) => each.status === 'active');
    const before = resultsOf(sim, test.id);
    sim.advanceDays(3);
    const after = resultsOf(sim, test.id);
    expect(Object.keys(after.daily)).toHaveLength(Object.keys(before.daily).length + 3);
    for (const [date, day] of Object.entries(before.daily)) expect(after.daily[date]).toEqual(day);
    expect(after.totalVisitors).toBeGreaterThan(before.totalVisitors);
    // Results change on their own: the test record does not move.
    expect(sim.snapshot('Shop').tests.find((each) => each.id === test.id)?.updatedAt).toBe(
      test.updatedAt,
    );
  });

  it('gain data while active; paused and suspended tests, like ended ones, keep their results', () => {
    const sim = createSimulator({ now: () => NOW, stores: [{ name: 'Shop', tests: 200 }] });
    const paused = firstWith(
      sim,
      (each) => each.status === 'paused' || each.status === 'suspended',
    );
    const ended = firstWith(sim, (each) => isEnded(each.status));
    const active = firstWith(sim, (each) => each.status === 'active');
    expect(isLive(paused.status)).toBe(true);
    const pausedBefore = resultsOf(sim, paused.id);
    const endedBefore = resultsOf(sim, ended.id);
    const activeBefore = resultsOf(sim, active.id).totalVisitors;
    sim.advanceDays(2);
    expect(resultsOf(sim, active.id).totalVisitors).toBeGreaterThan(activeBefore);
    expect(resultsOf(sim, paused.id)).toEqual(pausedBefore);
    expect(resultsOf(sim, ended.id)).toEqual(endedBefore);
  });
});

describe('statistics', () => {
  it('uses a standard normal CDF accurate to the fourth decimal', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 4);
    expect(normalCdf(-1.644854)).toBeCloseTo(0.05, 4);
  });
});

describe('a planted sample-ratio mismatch', () => {
  it('makes the variant lose the given share of its visitors, and leaves other tests as they were', () => {
    const plain = createSimulator({ seed: 3, stores: [{ name: 'Plain', tests: 30 }] });
    const planted = createSimulator({ seed: 3, stores: [{ name: 'Plain', tests: 30 }] });
    const tests = plain
      .snapshot('Plain')
      .tests.filter((t) => t.variant !== null && plain.results('Plain', t.id) !== null);
    const [target, other] = tests;
    if (!target || !other) throw new Error('expected two tests with results');
    planted.plantSampleRatioMismatch('Plain', target.id, 0.3);
    const before = plain.results('Plain', target.id);
    const after = planted.results('Plain', target.id);
    expect(after?.control.visitors).toBe(before?.control.visitors);
    expect(after?.variant.visitors ?? 0).toBeLessThan((before?.variant.visitors ?? 0) * 0.8);
    expect(after?.variantSplit).toBe(before?.variantSplit);
    expect(planted.results('Plain', other.id)).toEqual(plain.results('Plain', other.id));
    expect(() => planted.plantSampleRatioMismatch('Plain', target.id, 1)).toThrow(RangeError);
  });
});
