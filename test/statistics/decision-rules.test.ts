// Known answers of the rules an analyst signs: guardrails, practical significance, "no difference" as
// equivalence, paused days, "cannot conclude" only when true, the forecast's odds, plan changes from
// the settings, the lift adjusted for stopping early, and a fading lift; with the properties that must
// hold of any data (a guardrail never turns keep the control into ship; no difference never becomes
// ship on a narrower interval inside the band).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Test, TestResults } from '#shared/api/index';
import {
  Decision,
  decideTest,
  DEFAULT_DECISION_SETTINGS,
  type DecisionSettings,
  type SettingsChange,
} from '#shared/domain/decisions/index';
import { dateKey, resultsOf, testOf, type Counts, type DayCounts } from './support';

const START = '2026-05-01';
const running = (overrides: Partial<Test> = {}) =>
  testOf({ status: 'active', startAt: `${START}T00:00:00Z`, endAt: null, automaticallyEndAt: null, ...overrides });
const ended = (days: number, overrides: Partial<Test> = {}) =>
  testOf({ status: 'completed', startAt: `${START}T00:00:00Z`, endAt: `${dateKey(START, days - 1)}T23:00:00Z`, automaticallyEndAt: null, ...overrides });
const EMPTY: Counts = { visitors: 0, conversions: 0, revenue: 0 };
const TODAY: DayCounts = { control: EMPTY, variant: EMPTY };

function decide(test: Test, results: TestResults, settings: DecisionSettings = DEFAULT_DECISION_SETTINGS, changes: SettingsChange[] = []) {
  const decision = decideTest({ test, results, settings, changes });
  if (decision === null) throw new Error('no decision');
  expect(Decision.safeParse(decision).success).toBe(true);
  return decision;
}

/** `n` days at `perDay` visitors a side: conversion rates and mean order values per side, alternating ±10% from day to day. */
function shop(n: number, perDay: number, control: { rate: number; value: number }, variant: { rate: number; value: number }): DayCounts[] {
  return Array.from({ length: n }, (_, i) => {
    const wobble = i % 2 === 0 ? 1.1 : 0.9;
    const visitors = Math.round(perDay * wobble);
    const side = (s: { rate: number; value: number }, k: number): Counts => {
      const orders = Math.round(visitors * s.rate);
      // Order values vary from day to day as a store's do (±15%, out of step between the sides).
      return { visitors, conversions: orders, orders, revenue: orders * s.value * (1 + 0.15 * Math.sin(i * 1.7 + k)) };
    };
    return { control: side(control, 0), variant: side(variant, 2) };
  });
}

describe('guardrails', () => {
  it('an average-order-value test whose order value rose +15% while conversion fell −27% is "keep the control", naming revenue per visitor', () => {
    const daily = shop(28, 4000, { rate: 0.04, value: 50 }, { rate: 0.04 * 0.73, value: 57.5 });
    const d = decide(ended(28, { goal: 'average-order-value' }), resultsOf(daily));
    expect(d.call).toBe('keep_control');
    const worse = d.guardrails.find((check) => check.verdict === 'worse');
    expect(worse?.metric).toBe('rpv');
    expect(d.reason).toMatch(/revenue per visitor −1\d\.\d% \(−\d+\.\d% to −\d+\.\d%\).*the variant loses money, although average order value \+1\d\.\d%/);
  });

  it('a conversion-rate test at +12% whose revenue per visitor fell 16% is "keep the control"', () => {
    const daily = shop(28, 4000, { rate: 0.04, value: 50 }, { rate: 0.04 * 1.12, value: 50 * 0.75 });
    const d = decide(ended(28), resultsOf(daily));
    expect(d.call).toBe('keep_control');
    expect(d.reason).toMatch(/the variant loses money/);
  });

  it('both winning: ship, the guardrail named beside it', () => {
    const daily = shop(28, 4000, { rate: 0.04, value: 50 }, { rate: 0.04 * 1.12, value: 50 });
    const d = decide(ended(28), resultsOf(daily));
    expect(d.call).toBe('ship');
    expect(d.guardrails.map((check) => check.metric)).toEqual(['rpv']);
    expect(d.guardrails[0]?.verdict).not.toBe('worse');
  });

  it('the guardrails are a setting: none, or others (a conversion-rate guardrail on an add-to-cart goal)', () => {
    const daily = shop(28, 4000, { rate: 0.04, value: 50 }, { rate: 0.04 * 1.12, value: 50 * 0.75 });
    const none = decide(ended(28), resultsOf(daily), { ...DEFAULT_DECISION_SETTINGS, guardrails: [] });
    expect(none.call).toBe('ship');
    expect(none.basis).toMatch(/guardrails none/);
    const cart = decide(ended(28, { goal: 'add-to-cart-rate' }), resultsOf(daily), { ...DEFAULT_DECISION_SETTINGS, guardrails: ['cvr', 'rpv'] });
    expect(cart.guardrails.map((check) => check.metric)).toEqual(['cvr', 'rpv']);
  });

  it('property: a guardrail never turns "keep the control" into "ship", only ship into keep the control', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.7, max: 1.3, noNaN: true }),
        fc.double({ min: 0.7, max: 1.3, noNaN: true }),
        fc.integer({ min: 500, max: 5000 }),
        (rateLift, valueLift, perDay) => {
          const results = resultsOf(shop(21, perDay, { rate: 0.03, value: 50 }, { rate: 0.03 * rateLift, value: 50 * valueLift }));
          const watched = decide(ended(21), results).call;
          const unwatched = decide(ended(21), results, { ...DEFAULT_DECISION_SETTINGS, guardrails: [] }).call;
          return watched === unwatched || (unwatched === 'ship' && watched === 'keep_control');
        },
      ),
      { numRuns: 60, seed: 43 },
    );
  });
});

describe('practical significance and no difference as equivalence', () => {
  it('+1% at 300,000 visitors a side a day: "no difference", a real but small one, never a ship on a later day', () => {
    const daily = shop(28, 300_000, { rate: 0.03, value: 50 }, { rate: 0.0303, value: 50 });
    const calls = [7, 14, 21, 28].map((day) => decide(running(), resultsOf([...daily.slice(0, day), TODAY])));
    expect(calls.map((d) => d.call)).toEqual(['no_difference', 'no_difference', 'no_difference', 'no_difference']);
    expect(calls[3]?.look?.day).toBe(calls[0]?.look?.day);
    // A significant +1% (its interval excludes zero) is still too small to matter: said so, with the band.
    const crossing = decide(ended(28), resultsOf(shop(28, 3_000_000, { rate: 0.03, value: 50 }, { rate: 0.0303, value: 50 })));
    expect(crossing.call).toBe('no_difference');
    expect(crossing.reason).toMatch(/\+1\.0%.*: a real but small difference, smaller than the ±5% that matters\.$/);
  });

  it('an undecided early test at high traffic keeps running: +3% on day 8 with an interval still holding ±5% is not "no difference"', () => {
    const daily = shop(8, 50_000, { rate: 0.03, value: 50 }, { rate: 0.0309, value: 50 });
    const d = decide(running(), resultsOf([...daily, TODAY]));
    expect(d.call).toBe('keep_running');
    expect(d.look?.high).toBeGreaterThan(0.05);
    expect(d.reason).toMatch(/still holds lifts beyond ±5%/);
  });

  it('property: once "no difference", never "ship" as the interval narrows inside the band', () => {
    fc.assert(
      fc.property(fc.double({ min: -0.02, max: 0.02, noNaN: true }), fc.integer({ min: 100_000, max: 400_000 }), (lift, perDay) => {
        const daily = shop(28, perDay, { rate: 0.03, value: 50 }, { rate: 0.03 * (1 + lift), value: 50 });
        let seenNoDifference = false;
        for (let day = 7; day <= 28; day += 3) {
          const call = decide(running(), resultsOf([...daily.slice(0, day), TODAY])).call;
          if (seenNoDifference && call === 'ship') return false;
          if (call === 'no_difference') seenNoDifference = true;
        }
        return true;
      }),
      { numRuns: 25, seed: 44 },
    );
  });
});

describe('paused days and paused tests', () => {
  it('a day with no visitors is no look: it spends nothing, and the call is the one of the days with traffic', () => {
    const daily = shop(14, 2500, { rate: 0.03, value: 50 }, { rate: 0.0335, value: 50 });
    const before = decide(running(), resultsOf([...daily.slice(0, 10), TODAY]));
    const pausedDay: DayCounts = { control: EMPTY, variant: EMPTY };
    const after = decide(running(), resultsOf([...daily.slice(0, 10), pausedDay, TODAY]));
    expect(after.look?.day).toBe(before.look?.day);
    expect(after.look?.spent).toBe(before.look?.spent);
    expect(after.look?.boundary).toBe(before.look?.boundary);
  });

  it('a paused test gets no "keep running" with a date already past: "Paused since …, no call until it resumes"', () => {
    const daily = shop(10, 2500, { rate: 0.03, value: 50 }, { rate: 0.0335, value: 50 });
    const paused: DayCounts = { control: EMPTY, variant: EMPTY };
    const d = decide(running({ status: 'paused' }), resultsOf([...daily, paused, paused, paused]));
    expect(d.call).toBe('paused');
    expect(d.words).toBe('Paused since 11 May 2026 — no call until it resumes');
    expect(d.daysToDecision).toBeNull();
    expect(d.decisionDate).toBeNull();
    expect(d.reason).toMatch(/the API gives no pause date: the last day with visitors was 10 May 2026/);
  });
});

describe('"cannot conclude" only when it is true, and the forecast', () => {
  it('a test within its plan that can still get a call keeps running, with its odds and what the plan can detect', () => {
    const daily = shop(7, 1500, { rate: 0.03, value: 50 }, { rate: 0.031, value: 50 });
    const d = decide(running(), resultsOf([...daily, TODAY]));
    expect(d.call).toBe('keep_running');
    expect(d.forecast).toMatchObject({ method: 'predictive', planDay: 28 });
    expect(d.forecast?.chance).toBeGreaterThan(0);
    expect(d.forecast?.chanceByPlanEnd).toBeGreaterThanOrEqual(d.forecast?.chance ?? 1);
    expect(d.reason).toMatch(/a call by (day \d+|the plan's end) .*\d+% likely/);
    expect(d.reason).toMatch(/at this traffic the 28-day plan detects about ±\d+(\.\d)?%, ±5% would take about/);
  });

  it('cannot conclude when even the minimum effect has under a 10% chance of a call within the longest wait', () => {
    const d = decide(running(), resultsOf([...shop(10, 60, { rate: 0.03, value: 50 }, { rate: 0.03, value: 50 }), TODAY]));
    expect(d.call).toBe('cannot_conclude');
    expect(d.reason).toMatch(/^Even a lift of [+−]\d+\.\d% would have a \d+% chance of a call within the longest wait of 90 days/);
  });

  it('a test clearly losing before its guards hold is flagged "likely harmful — consider stopping"', () => {
    const d = decide(running(), resultsOf([...shop(3, 3000, { rate: 0.04, value: 50 }, { rate: 0.027, value: 50 }), TODAY]));
    expect(d.call).toBe('keep_running');
    expect(d.words).toBe('Likely harmful — consider stopping');
    expect(d.flags.harmful?.text).toMatch(/^likely harmful — consider stopping: conversion rate −3\d\.\d% \(always-valid interval/);
  });
});

describe('plan changes from the settings, and the estimate at the call', () => {
  it('a planned length changed in the settings after launch is recorded and never re-judges a past look', () => {
    const daily = shop(20, 2000, { rate: 0.03, value: 50 }, { rate: 0.034, value: 50 });
    const results = resultsOf([...daily, TODAY]);
    const under28 = decide(running(), results);
    // The store's plan went from 28 to 21 days on day 15: looks through day 14 keep the 28-day design.
    const change: SettingsChange = { from: dateKey(START, 14), settings: DEFAULT_DECISION_SETTINGS, planSource: 'setting', source: 'store' };
    const changed = decide(running(), results, { ...DEFAULT_DECISION_SETTINGS, plannedDays: 21 }, [change]);
    expect(changed.plan?.changes).toEqual([{ from: dateKey(START, 14), text: "planned length 28 → 21 days (the store's settings)" }]);
    if (under28.look !== null && under28.call === 'ship' && under28.look.day <= 14) expect(changed.call).toBe('ship');
    if (changed.look !== null && changed.look.day >= 15) expect(changed.method).toBe('always-valid');
    // A change made before the test had any data is its design, not a change.
    const early = decide(running(), results, { ...DEFAULT_DECISION_SETTINGS, plannedDays: 21 }, [{ ...change, from: '2026-04-20' }]);
    expect(early.plan?.changes).toEqual([]);
  });

  it('the lift at a group sequential call is adjusted for stopping early, the one seen beside it', () => {
    const d = decide(ended(28), resultsOf(shop(28, 2000, { rate: 0.03, value: 50 }, { rate: 0.036, value: 50 })));
    expect(d.call).toBe('ship');
    const { lift, adjustedLift } = d.look ?? { lift: 0, adjustedLift: null };
    expect(adjustedLift).not.toBeNull();
    expect(adjustedLift ?? 1).toBeLessThan(lift);
    expect(adjustedLift ?? 0).toBeGreaterThan(0);
    // Beside the call, figures that cannot contradict it: the chance of more than the minimum effect, and the risk.
    expect(d.odds?.better).toBeGreaterThan(0.5);
    expect(d.odds?.risk).toBeLessThan(0.001);
  });

  it('a no-difference call with a near-certain chance to win has a near-zero chance of more than the minimum effect', () => {
    const d = decide(ended(28), resultsOf(shop(28, 3_000_000, { rate: 0.03, value: 50 }, { rate: 0.0303, value: 50 })));
    expect(d.call).toBe('no_difference');
    expect(d.goal?.pWin).toBeGreaterThan(0.999);
    expect(d.odds?.better).toBeLessThan(0.001);
  });
});

describe('a fading lift', () => {
  it('+15% in week 1 and nothing since is flagged in the reason; the call stands', () => {
    const daily = shop(21, 4000, { rate: 0.03, value: 50 }, { rate: 0.03, value: 50 }).map((day, i) =>
      i < 7 ? { ...day, variant: { ...day.variant, conversions: Math.round(day.variant.conversions * 1.15), orders: Math.round(day.variant.conversions * 1.15) } } : day,
    );
    const d = decide(ended(21), resultsOf(daily));
    expect(d.flags.fading?.text).toMatch(/^the lift is fading: \+1\d\.\d% in week 1, [+−]?\d\.\d% since$/);
    expect(d.reason).toMatch(/the lift is fading: .*, look before acting\.$/);
  });
});
