// Every metric of a test as a lift with its interval, drawn to one scale (GrowthBook's results table):
// the rows (which metrics, their figures, what each means for the call) and the scale they share. The
// Results tab and the client report draw from these, so both show the same bars.
import { METRICS, type Metric } from './metrics';
import type { GoalFigures } from './decisions/schemas';
import type { TestAnalysis } from './statistics/schemas';

/** What a metric means for the call: the test's goal, a guardrail that must not get worse, or another. */
export type IntervalRole = 'goal' | 'guardrail' | 'other';

export type IntervalRow = {
  metric: Metric['rate'];
  label: string;
  /** Relative lift of the variant over the control, and its 95% interval: fractions (0.05 = +5%). */
  lift: number;
  low: number;
  high: number;
  role: IntervalRole;
  /** Revenue metrics: an interval from the day-to-day spread, approximate. */
  approximate: boolean;
};

/** The widest the shared scale goes each way (±100%): an interval past it is drawn cut, with an arrow. */
export const SCALE_CAP = 1;
/** The narrowest (±5%), so a test of tiny lifts does not draw noise as if it were large. */
export const SCALE_FLOOR = 0.05;

const ROLE_ORDER: Record<IntervalRole, number> = { goal: 0, guardrail: 1, other: 2 };

/**
 * The rows of a test, goal first, then guardrails, then the rest in the metrics' order; a metric without
 * an interval (no events, no revenue days) is left out. `goal` is the call's own current figures of the
 * goal when there is a call, so the goal's bar is the figure the call and the list show; `guardrails`
 * names the metrics the call watches (Decision.guardrails).
 */
export function metricIntervals(
  analysis: TestAnalysis,
  options: { goal?: GoalFigures | null; guardrails?: readonly Metric['rate'][] } = {},
): IntervalRow[] {
  const guardrails = new Set(options.guardrails ?? []);
  const rows: IntervalRow[] = [];
  for (const metric of METRICS) {
    const role: IntervalRole =
      metric.rate === analysis.goalMetric
        ? 'goal'
        : guardrails.has(metric.rate)
          ? 'guardrail'
          : 'other';
    const figures = figuresOf(analysis, metric.rate);
    const goal = role === 'goal' ? options.goal : null;
    const own =
      goal &&
      goal.metric === metric.rate &&
      goal.lift !== null &&
      goal.liftLow !== null &&
      goal.liftHigh !== null
        ? { lift: goal.lift, low: goal.liftLow, high: goal.liftHigh, approximate: goal.approximate }
        : figures;
    if (own === null || ![own.lift, own.low, own.high].every(Number.isFinite)) continue;
    rows.push({ metric: metric.rate, label: metric.label, role, ...own });
  }
  return rows.sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role]);
}

function figuresOf(
  analysis: TestAnalysis,
  rate: Metric['rate'],
): { lift: number; low: number; high: number; approximate: boolean } | null {
  if (rate === 'rpv' || rate === 'aov') {
    const revenue = analysis.revenue?.[rate] ?? null;
    return revenue === null
      ? null
      : {
          lift: revenue.observedLift,
          low: revenue.liftCiLow,
          high: revenue.liftCiHigh,
          approximate: true,
        };
  }
  const binary = analysis.perMetric[rate];
  if (binary === null || binary.observedLift === null) return null;
  return {
    lift: binary.observedLift,
    low: binary.liftCiLow,
    high: binary.liftCiHigh,
    approximate: false,
  };
}

export type IntervalScale = {
  /** The scale runs from −max to +max (a fraction). */
  max: number;
  /** The ticks: −max, zero and +max (more would crowd a narrow bar). */
  ticks: number[];
  /** Where a lift sits across the bar, 0 (left, −max) to 1 (right, +max), clamped. */
  at(value: number): number;
};

/** 1, 2 or 5 times a power of ten: the step that gives about two ticks each side of zero. */
function niceMax(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value - 1e-12) return step * power;
  return 10 * power;
}

/** One scale for every row: symmetric round zero, wide enough for every interval within SCALE_CAP. */
export function intervalScale(rows: readonly IntervalRow[]): IntervalScale {
  const widest = rows.reduce(
    (most, row) => Math.max(most, Math.abs(row.low), Math.abs(row.high)),
    0,
  );
  const max = Math.min(SCALE_CAP, niceMax(Math.max(SCALE_FLOOR, widest)));
  return {
    max,
    ticks: [-max, 0, max],
    at: (value) => Math.min(1, Math.max(0, (value + max) / (2 * max))),
  };
}

/** The bar of one row on the scale: where its interval and its point sit, and which ends are cut. */
export function intervalGeometry(
  row: Pick<IntervalRow, 'lift' | 'low' | 'high'>,
  scale: IntervalScale,
): { from: number; to: number; point: number; cutLow: boolean; cutHigh: boolean } {
  return {
    from: scale.at(row.low),
    to: scale.at(row.high),
    point: scale.at(row.lift),
    cutLow: row.low < -scale.max,
    cutHigh: row.high > scale.max,
  };
}

/** How a row's interval reads against zero, in words (never by colour alone). */
export function intervalReading(
  row: Pick<IntervalRow, 'low' | 'high'>,
): 'above zero' | 'below zero' | 'spans zero' {
  if (row.low > 0) return 'above zero';
  if (row.high < 0) return 'below zero';
  return 'spans zero';
}
