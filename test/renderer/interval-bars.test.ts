// Every metric as its lift and interval on one scale (issue 44, beyond the anchors): which rows, in which
// order and role, and the scale they share, as the Results tab and the client report draw them.
import { describe, expect, test } from 'vitest';
import type { GoalFigures } from '#shared/domain/decisions/schemas';
import {
  intervalGeometry,
  intervalReading,
  intervalScale,
  metricIntervals,
  SCALE_CAP,
  type IntervalRow,
} from '#shared/domain/interval-bars';
import type { TestAnalysis } from '#shared/domain/statistics/index';

function binary(lift: number, low: number, high: number) {
  return {
    pWin: 0.5,
    expectedLossVariant: 0,
    expectedLossControl: 0,
    liftCiLow: low,
    liftCiHigh: high,
    observedLift: lift,
    controlCount: 100,
    controlTrials: 1000,
    variantCount: 110,
    variantTrials: 1000,
    method: 'exact' as const,
  };
}

function analysis(goalMetric: TestAnalysis['goalMetric']): TestAnalysis {
  const revenue = (metric: 'rpv' | 'aov', lift: number) => ({
    metric,
    control: 1,
    variant: 1 + lift,
    observedLift: lift,
    liftCiLow: lift - 0.1,
    liftCiHigh: lift + 0.1,
    days: 14,
    df: 13,
    approximate: true as const,
  });
  return {
    goalMetric,
    perMetric: { cvr: binary(0.05, -0.02, 0.12), acr: binary(-0.03, -0.08, 0.02), ctr: null },
    revenue: {
      approximate: true,
      explanation: '',
      rpv: revenue('rpv', 0.04),
      aov: revenue('aov', -0.01),
    },
    srm: {
      judged: true,
      reason: null,
      chiSquare: 0,
      pValue: 1,
      mismatch: false,
      expectedControlShare: 0.5,
      observedControlShare: 0.5,
      onsetDate: null,
    },
    alerts: [],
  };
}

describe('metricIntervals', () => {
  test('the goal first, marked; then the other metrics in their order; a metric without figures left out', () => {
    const rows = metricIntervals(analysis('acr'));
    expect(rows.map((r) => [r.metric, r.role])).toEqual([
      ['acr', 'goal'],
      ['cvr', 'other'],
      ['rpv', 'other'],
      ['aov', 'other'],
    ]);
    expect(rows.find((r) => r.metric === 'rpv')?.approximate).toBe(true);
    expect(rows.find((r) => r.metric === 'cvr')).toMatchObject({
      lift: 0.05,
      low: -0.02,
      high: 0.12,
    });
  });

  test("the goal's bar is the call's own current figures when there is a call", () => {
    const goal: GoalFigures = {
      metric: 'acr',
      control: 0.1,
      variant: 0.097,
      lift: -0.031,
      liftLow: -0.079,
      liftHigh: 0.019,
      pWin: 0.2,
      approximate: false,
    };
    const row = metricIntervals(analysis('acr'), { goal })[0];
    expect(row).toMatchObject({
      metric: 'acr',
      role: 'goal',
      lift: -0.031,
      low: -0.079,
      high: 0.019,
    });
  });

  test('guardrails, once the engine names them, come after the goal and before the rest', () => {
    const rows = metricIntervals(analysis('cvr'), { guardrails: ['aov'] });
    expect(rows.map((r) => [r.metric, r.role])).toEqual([
      ['cvr', 'goal'],
      ['aov', 'guardrail'],
      ['rpv', 'other'],
      ['acr', 'other'],
    ]);
  });

  test('an unknown goal leaves every metric "other"', () => {
    expect(metricIntervals(analysis(null)).every((r) => r.role === 'other')).toBe(true);
  });
});

describe('the shared scale', () => {
  const row = (low: number, high: number): IntervalRow => ({
    metric: 'cvr',
    label: 'Conversion rate',
    lift: (low + high) / 2,
    low,
    high,
    role: 'other',
    approximate: false,
  });

  test('is symmetric round zero, a round figure, wide enough for every interval', () => {
    const scale = intervalScale([row(-0.02, 0.12), row(-0.08, 0.02)]);
    expect(scale.max).toBe(0.2);
    expect(scale.ticks).toEqual([-0.2, 0, 0.2]);
    expect(scale.at(0)).toBe(0.5);
    expect(scale.at(-0.2)).toBe(0);
    expect(scale.at(0.2)).toBe(1);
  });

  test('never narrower than ±5%, never wider than ±100%: wider intervals are drawn cut', () => {
    expect(intervalScale([row(-0.001, 0.002)]).max).toBe(0.05);
    const wide = intervalScale([row(-0.6, 3.5)]);
    expect(wide.max).toBe(SCALE_CAP);
    const bar = intervalGeometry(row(-0.6, 3.5), wide);
    expect(bar.cutHigh).toBe(true);
    expect(bar.cutLow).toBe(false);
    expect(bar.to).toBe(1);
  });

  test('one row sits where its numbers say, and reads in words against zero', () => {
    const scale = intervalScale([row(-0.1, 0.1)]);
    const bar = intervalGeometry({ lift: 0.05, low: 0.025, high: 0.075 }, scale);
    expect(bar.from).toBeCloseTo(0.625);
    expect(bar.point).toBeCloseTo(0.75);
    expect(bar.to).toBeCloseTo(0.875);
    expect(intervalReading({ low: 0.025, high: 0.075 })).toBe('above zero');
    expect(intervalReading({ low: -0.1, high: -0.01 })).toBe('below zero');
    expect(intervalReading({ low: -0.1, high: 0.1 })).toBe('spans zero');
  });
});
