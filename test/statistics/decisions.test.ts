// Known answers of the decision on one test's goal: every call from counts chosen for it, days to a
// decision, the revenue model, and the properties a careful analyst expects of any rule.
import { describe, expect, it } from 'vitest';
import type { Test, TestResults } from '#shared/api/index';
import {
  Decision,
  decideTest,
  DEFAULT_DECISION_SETTINGS,
  goalFigures,
  type DecisionSettings,
} from '#shared/domain/decisions/index';
import { dateKey, evenDays, resultsOf, testOf, type Counts, type DayCounts } from './support';

const START = '2026-05-01';
const running = (overrides: Partial<Test> = {}) =>
  testOf({
    status: 'active',
    startAt: `${START}T00:00:00Z`,
    endAt: null,
    automaticallyEndAt: null,
    ...overrides,
  });
const ended = (days: number, overrides: Partial<Test> = {}) =>
  testOf({
    status: 'completed',
    startAt: `${START}T00:00:00Z`,
    endAt: `${dateKey(START, days - 1)}T23:00:00Z`,
    automaticallyEndAt: null,
    ...overrides,
  });

/** `n` days of `perDay` visitors a side at the given rates, with a little day-to-day wobble that sums exactly. */
function days(n: number, perDay: number, controlRate: number, variantRate: number): DayCounts[] {
  return Array.from({ length: n }, (_, i) => {
    const wobble = i % 2 === 0 ? 1.1 : 0.9;
    const visitors = Math.round(perDay * wobble);
    return {
      control: { visitors, conversions: Math.round(visitors * controlRate) },
      variant: { visitors, conversions: Math.round(visitors * variantRate) },
    };
  });
}

/** Results of complete days and, for an active test, today's day still in progress (empty). */
function resultsRunning(complete: DayCounts[], overrides: Partial<TestResults> = {}): TestResults {
  const today: DayCounts = {
    control: { visitors: 0, conversions: 0 },
    variant: { visitors: 0, conversions: 0 },
  };
  return resultsOf([...complete, today], overrides);
}

function decide(
  test: Test,
  results: TestResults,
  settings: DecisionSettings = DEFAULT_DECISION_SETTINGS,
) {
  const decision = decideTest({ test, results, settings });
  if (decision === null) throw new Error('no decision');
  // Every call parses with its schema: what the cache stores and the bridge carries.
  expect(Decision.safeParse(decision).success).toBe(true);
  return decision;
}

describe('decideTest: one call per test on its goal', () => {
  it('a clear winner: ship, with the figures and settings it used in one line', () => {
    const d = decide(ended(28), resultsOf(days(28, 2000, 0.03, 0.036)));
    expect(d.call).toBe('ship');
    expect(d.words).toBe('Ship the variant');
    expect(d.method).toBe('group-sequential');
    // The figures at the call, labelled with its day and date, the lift adjusted for stopping early beside the one seen.
    expect(d.reason).toMatch(
      /^At the call, day \d+ \(\d+ May 2026\): conversion rate \+\d+\.\d% adjusted for stopping early \(\+\d+\.\d% as seen\), 95% sequential interval \+\d+\.\d% to \+\d+\.\d%, [\d,]+ vs [\d,]+ conversions; guardrail revenue per visitor .*: not clear, the call stands\.$/,
    );
    expect(d.basis).toMatch(/Group sequential test \(O'Brien–Fleming spending\), look on day \d+/);
    expect(d.basis).toMatch(/credibility 95%, effect ±5%, ≥7 days, ≥100 conversions a side, guardrail revenue per visitor/);
    // The look crossed its boundary, and its interval excludes no effect.
    expect(Math.abs(d.look?.z ?? 0)).toBeGreaterThanOrEqual(d.look?.boundary ?? Infinity);
    expect(d.look?.low).toBeGreaterThan(0);
    expect(d.guards.every((g) => g.ok)).toBe(true);
  });

  it('a clear loser: keep the control', () => {
    const d = decide(ended(28), resultsOf(days(28, 2000, 0.036, 0.03)));
    expect(d.call).toBe('keep_control');
    expect(d.look?.high).toBeLessThan(0);
  });

  it('a test two days old with a huge lift (P(win) 99%) keeps running until the minimum runtime', () => {
    const d = decide(running(), resultsRunning(days(2, 2000, 0.03, 0.04)));
    expect(d.goal?.pWin).toBeGreaterThan(0.99);
    expect(d.call).toBe('keep_running');
    expect(d.guards.find((g) => g.id === 'runtime')).toMatchObject({
      ok: false,
      text: '2 days of data (7 needed)',
    });
    // Five more days to the minimum runtime at least, and the date from the last complete day.
    expect(d.daysToDecision).toBeGreaterThanOrEqual(5);
    expect(d.decisionDate).toBe(dateKey(START, 1 + (d.daysToDecision ?? 0)));
    expect(d.words).toMatch(/^Keep running, about \d+ (days|weeks)$/);
    // The forecast's odds, from the data so far (predictive power): a day and the chance of a call by it.
    expect(d.forecast).toMatchObject({ method: 'predictive', planDay: 28 });
    expect(d.reason).toMatch(/^2 days of data \(7 needed\); a call by day \d+ is \d+% likely, by the plan's end \(day 28\) \d+%/);
  });

  it('a sample-ratio mismatch: check the data first, whatever the lift', () => {
    const skewed = days(28, 2000, 0.03, 0.04).map((day) => ({
      ...day,
      variant: { ...day.variant, visitors: Math.round(day.variant.visitors * 0.9) },
    }));
    const d = decide(ended(28), resultsOf(skewed));
    expect(d.call).toBe('check_data');
    expect(d.reason).toBe(
      'Visitors did not split as configured: 52.6% / 47.4% against 50% / 50% configured, p < 0.0001. No call can be trusted until this is explained.',
    );
    expect(d.guards.find((g) => g.id === 'sample-ratio')?.ok).toBe(false);
  });

  it('counts that cannot be true under any reading: check the data first', () => {
    const base = resultsOf(days(14, 500, 0.03, 0.03));
    const impossible = {
      ...base,
      variant: { ...base.variant, conversions: base.variant.visitors + 5 },
    };
    const d = decide(ended(14), impossible);
    expect(d.call).toBe('check_data');
    expect(d.reason).toMatch(/^Counts that cannot be true: the variant has more conversions/);
  });

  it('daily figures that contradict the totals: check the data first', () => {
    const base = resultsOf(days(14, 500, 0.03, 0.03));
    const d = decide(ended(14), {
      ...base,
      control: { ...base.control, orders: base.control.orders + 40 },
    });
    expect(d.call).toBe('check_data');
    expect(d.reason).toMatch(/daily figures do not add up/);
  });

  it('a flat test with a huge sample: no meaningful difference', () => {
    const d = decide(running(), resultsRunning(days(21, 40_000, 0.03, 0.0301)));
    expect(d.call).toBe('no_difference');
    expect(d.words).toBe('No meaningful difference');
    expect(d.look?.low).toBeGreaterThan(-0.05);
    expect(d.look?.high).toBeLessThan(0.05);
  });

  it('too little traffic to ever conclude: says what it would take', () => {
    const d = decide(running(), resultsRunning(days(14, 40, 0.03, 0.03)));
    expect(d.call).toBe('cannot_conclude');
    expect(d.words).toBe('Cannot conclude at this traffic');
    expect(d.reason).toMatch(/^Even a lift of \+5\.0% would have a \d+% chance of a call within the longest wait of 90 days at this traffic/);
  });

  it('a running test with a moderate effect: keep running, about N days, within its plan', () => {
    const d = decide(running(), resultsRunning(days(10, 2500, 0.03, 0.0335)));
    expect(d.call).toBe('keep_running');
    expect(d.daysToDecision).toBeGreaterThanOrEqual(1);
    expect(d.daysToDecision).toBeLessThanOrEqual(18);
    expect(d.reason).toMatch(/^The 95% sequential interval of conversion rate through 10 May 2026 \(−\d+\.\d% to \+\d+\.\d%\) still holds lifts beyond ±5%; a call by day \d+ is \d+% likely/);
    expect(d.plan).toMatchObject({
      plannedDays: 28,
      source: 'setting',
      endDate: dateKey(START, 27),
    });
  });

  it("the goal metric decides, not the API's top-level lift: an add-to-cart test whose carts fell", () => {
    const carts = (visitors: number, rate: number): Counts => ({
      visitors,
      conversions: Math.round(visitors * 0.03),
      carts: Math.round(visitors * rate),
    });
    const daily = Array.from({ length: 28 }, () => ({
      control: carts(3000, 0.081),
      variant: carts(3000, 0.0798),
    }));
    const results = resultsOf(daily, {
      lift: 35.7,
      variantProbabilityWin: 0.97,
      controlProbabilityWin: 0.03,
    });
    const test = ended(28, { goal: 'add-to-cart-rate' });
    const figures = goalFigures(test, results);
    expect(figures?.metric).toBe('acr');
    expect(figures?.lift).toBeLessThan(0);
    const d = decide(test, results);
    expect(d.call).not.toBe('ship');
    expect(d.reason).toMatch(/add-to-cart rate −1\.\d% \(95% sequential interval/);
  });

  it('revenue goals get a chance to win and an interval, labelled approximate, never narrower than the orders allow', () => {
    const money = (visitors: number, orders: number, revenue: number): Counts => ({
      visitors,
      conversions: orders,
      orders,
      revenue,
    });
    const daily = Array.from({ length: 28 }, (_, i) => ({
      control: money(2000, 60, 60 * 50 * (i % 2 === 0 ? 1.05 : 0.95)),
      variant: money(2000, 66, 66 * 50 * (i % 2 === 0 ? 1.05 : 0.95)),
    }));
    const test = ended(28, { goal: 'revenue-per-visitor' });
    const figures = goalFigures(test, resultsOf(daily));
    expect(figures).toMatchObject({ metric: 'rpv', approximate: true });
    expect(figures?.pWin).toBeGreaterThan(0.9);
    // The days wobble alike on both sides, so their spread alone would be near zero: the floor of
    // 1,680 vs 1,848 orders keeps the interval honest (its half-width at least 1.96 · √(1/1680 + 1/1848) ≈ 6.6%).
    expect((figures?.liftHigh ?? 0) - (figures?.liftLow ?? 0)).toBeGreaterThan(0.12);
    const d = decide(test, resultsOf(daily));
    expect(d.reason).toMatch(/revenue per visitor .* orders/);
    expect(d.basis).toMatch(/Student's t on \d+\.\d degrees of freedom \(days as replicates\)/);
  });

  it('a goal Splitbook cannot read gets no call, said so', () => {
    const d = decide(
      ended(14, { goal: 'newsletter-signups' }),
      resultsOf(days(14, 500, 0.03, 0.03)),
    );
    expect(d.call).toBe('cannot_conclude');
    expect(d.reason).toMatch(/cannot read the goal "newsletter-signups"/);
  });

  it('a test without a variant has no call', () => {
    expect(
      decideTest({
        test: ended(14, { variant: null }),
        results: resultsOf(days(14, 500, 0.03, 0.03)),
        settings: DEFAULT_DECISION_SETTINGS,
      }),
    ).toBeNull();
  });

  it('the settings are honoured and named: a stricter credibility needs more', () => {
    const results = resultsOf(days(28, 1200, 0.03, 0.033));
    const loose = decide(ended(28), results, { ...DEFAULT_DECISION_SETTINGS, credibility: 0.9 });
    const strict = decide(ended(28), results, { ...DEFAULT_DECISION_SETTINGS, credibility: 0.99 });
    expect(loose.call).toBe('ship');
    expect(strict.call).not.toBe('ship');
    expect(strict.basis).toMatch(/credibility 99%/);
  });

  it('the plan comes from automaticallyEndAt when set', () => {
    const d = decide(
      running({ automaticallyEndAt: `${dateKey(START, 14)}T00:00:00Z` }),
      resultsRunning(days(10, 2500, 0.03, 0.0335)),
    );
    expect(d.plan).toMatchObject({ plannedDays: 14, source: 'automatically-end-at' });
  });

  it('an ended test that stopped before its plan gets one always-valid check on the budget left', () => {
    // Ended on day 12 of a 28-day plan: |z| 3.17 fell short of the day's group sequential boundary
    // (3.27), but the always-valid interval on the 4.6% of budget left excludes zero.
    const d = decide(ended(12), resultsOf(days(12, 3000, 0.03, 0.03 * 1.138)));
    expect(d.call).toBe('ship');
    expect(d.method).toBe('always-valid');
    expect(d.look?.boundary).toBeLessThan(3.27);
    expect(d.basis).toMatch(
      /^Always-valid interval \(normal mixture\) on the 4\.\d% of budget left/,
    );
    // Weaker, and nothing is left to call it: cannot conclude, saying what it would take.
    const weaker = decide(ended(12), resultsOf(days(12, 3000, 0.03, 0.03 * 1.1)));
    expect(weaker.call).toBe('cannot_conclude');
    expect(weaker.reason).toMatch(
      /^The test ended without a call: conversion rate \+10\.0%.*detecting ±5% on conversion rate would take about \d+ (weeks|months) at its traffic\.$/,
    );
  });

  it('a plan changed after launch: recorded, and only always-valid calls follow it', () => {
    const results = resultsRunning(days(20, 2000, 0.03, 0.034));
    const d = decide(running(), results);
    const changed = decideTest({
      test: running(),
      results,
      settings: { ...DEFAULT_DECISION_SETTINGS, plannedDays: 60 },
      planSource: 'test',
      changes: [{ from: dateKey(START, 14), settings: DEFAULT_DECISION_SETTINGS, planSource: 'setting', source: 'test' }],
    });
    // The plan now, with the change recorded with its day (the spending keeps the launched 28 days).
    expect(changed?.plan).toMatchObject({
      plannedDays: 60,
      source: 'test',
      changes: [{ from: dateKey(START, 14), text: "planned length 28 → 60 days (this test's plan)" }],
    });
    if (changed?.call === 'ship' && d.call === 'ship' && (d.look?.day ?? 0) >= 15)
      expect(changed.method).toBe('always-valid');
  });
});

describe('decideTest: properties', () => {
  const scaled = (list: DayCounts[], k: number): DayCounts[] =>
    list.map((day) => ({
      control: { visitors: day.control.visitors * k, conversions: day.control.conversions * k },
      variant: { visitors: day.variant.visitors * k, conversions: day.variant.conversions * k },
    }));

  it('more data at the same rates never turns ship into keep the control (or back)', () => {
    for (const [a, b] of [
      [0.03, 0.034],
      [0.02, 0.023],
      [0.05, 0.052],
      [0.034, 0.03],
    ] as const) {
      const calls = [1, 2, 3, 5, 8].map(
        (k) => decide(ended(28), resultsOf(scaled(days(28, 400, a, b), k))).call,
      );
      const opposite = b > a ? 'keep_control' : 'ship';
      expect(calls).not.toContain(opposite);
      // Once the larger sample calls it, every larger one does too.
      const first = calls.findIndex((c) => c === (b > a ? 'ship' : 'keep_control'));
      if (first >= 0) expect(calls.slice(first).every((c) => c === calls[first])).toBe(true);
    }
  });

  it('swapping the sides swaps ship and keep the control, and nothing else', () => {
    const swap: Record<string, string> = { ship: 'keep_control', keep_control: 'ship' };
    for (const [a, b, n] of [
      [0.03, 0.036, 2000],
      [0.03, 0.031, 2000],
      [0.03, 0.0335, 800],
      [0.02, 0.02, 40_000],
    ] as const) {
      const list = days(28, n, a, b);
      const swapped = list.map((day) => ({ control: day.variant, variant: day.control }));
      const one = decide(ended(28), resultsOf(list)).call;
      const other = decide(ended(28), resultsOf(swapped)).call;
      expect(other).toBe(swap[one] ?? one);
    }
  });

  it('the same data gives the same call, however often it is asked', () => {
    const results = resultsRunning(days(16, 1500, 0.03, 0.033));
    const first = decide(running(), results);
    for (let i = 0; i < 5; i++) expect(decide(running(), results)).toEqual(first);
  });

  it('a call once made stays made as later days come in (checking daily cannot undo it)', () => {
    const list = days(28, 2000, 0.03, 0.036);
    const calls = [];
    for (let d = 7; d <= 28; d++)
      calls.push(decide(running(), resultsRunning(list.slice(0, d))).call);
    const first = calls.indexOf('ship');
    expect(first).toBeGreaterThanOrEqual(0);
    expect(calls.slice(first).every((c) => c === 'ship')).toBe(true);
  });
});

describe('evenDays fixtures stay consistent', () => {
  it('the totals are the sums of the days (no data check fires on a plain fixture)', () => {
    const d = decide(
      ended(14),
      resultsOf(
        evenDays(14, { visitors: 1000, conversions: 30 }, { visitors: 1000, conversions: 30 }),
      ),
    );
    expect(d.call).not.toBe('check_data');
  });
});

describe('the planner', () => {
  it('agrees with the sample-size arithmetic: 5% on a 2.6% rate at 510 visitors a day is about three years', async () => {
    const { plannedDaysNeeded } = await import('#shared/domain/decisions/index');
    const days =
      plannedDaysNeeded({
        metric: 'cvr',
        eventRate: 0.026,
        baseline: 0.026,
        dailyVisitors: 510,
        settings: DEFAULT_DECISION_SETTINGS,
      }) ?? 0;
    // n a side = (c + z₀.₈)² · 2(1 − p)/p / log(1.05)² with c ≈ 2.2 (daily looks): ≈ 290,000 → ≈ 1,140 days.
    expect(days).toBeGreaterThan(1000);
    expect(days).toBeLessThan(1300);
  });
});
