// What a test's call is made from that no setting changes (decisionFacts): the goal and its figures,
// the data checks and the completed days' counts. Pure; kept beside the results by the core.
import type { Test, TestResults } from '../../api';
import { metricOfGoal } from '../metrics';
import { analyseBinary } from '../statistics/binary';
import { dailySeries, dayNumberOfTimestamp } from '../statistics/daily';
import { dailyTotalsMismatch } from '../statistics/alerts';
import { REVENUE_MIN_DAYS, revenueEstimate, tMatching } from '../statistics/revenue';
import { sampleRatioTest } from '../statistics/srm';
import { rateEstimate, sumsOf, valueOf, zOf, type Estimate, type GoalMetric } from './estimates';
import { type DecisionDay } from './looks';
import { type DecisionFacts, type GoalFigures, type Guard } from './schemas';
import { normalCdf } from './sequential';
import { count, plainPercent } from './words';

/** The two-sided 95% normal quantile. */
const Z95 = 1.959963984540054;

function goalMetricOf(test: Test): GoalMetric | null {
  return metricOfGoal(test.goal)?.rate ?? null;
}

/** Splitbook's current figures of the goal from the totals the API sent: the one lift, interval and P(win). */
export function goalFigures(test: Test, results: TestResults): GoalFigures | null {
  const metric = goalMetricOf(test);
  if (metric === null) return null;
  const control = sumsOf(results.control);
  const variant = sumsOf(results.variant);
  const a = valueOf(control, metric);
  const b = valueOf(variant, metric);
  const lift = a !== null && b !== null && a > 0 ? b / a - 1 : null;
  if (metric === 'rpv' || metric === 'aov') {
    // The same guard as the Results tab: no interval, and so no chance to win, before 7 days of data.
    const estimate = revenueEstimate(dailySeries(results.daily).days, metric);
    const usable = estimate !== null && estimate.days >= REVENUE_MIN_DAYS ? { ...estimate } : null;
    return approximateFigures({ metric, control: a, variant: b, lift }, usable);
  }
  const binary = analyseBinary(results.control, results.variant, metric);
  if (binary !== null) {
    return { metric, control: a, variant: b, lift, liftLow: binary.liftCiLow, liftHigh: binary.liftCiHigh, pWin: binary.pWin, approximate: false };
  }
  // More events than visitors (clicks per visitor): a Poisson reading, approximate.
  return approximateFigures({ metric, control: a, variant: b, lift }, rateEstimate(control, variant, metric));
}

/** Figures from a normal (or t) approximation on the log lift (revenue goals, rates read as counts). */
function approximateFigures(base: Pick<GoalFigures, 'metric' | 'control' | 'variant' | 'lift'>, estimate: Estimate | null): GoalFigures {
  if (estimate === null) return { ...base, liftLow: null, liftHigh: null, pWin: null, approximate: true };
  const half = tMatching(Z95, estimate.df) * Math.sqrt(estimate.variance);
  return {
    ...base,
    liftLow: Math.expm1(estimate.theta - half),
    liftHigh: Math.expm1(estimate.theta + half),
    pWin: normalCdf(zOf(estimate)),
    approximate: true,
  };
}

/** The impossible counts of a side, in words (empty when every count can be true). */
function impossibleCounts(results: TestResults): string[] {
  const problems: string[] = [];
  for (const sideName of ['control', 'variant'] as const) {
    const side = results[sideName];
    const fields = ['visitors', 'conversions', 'carts', 'clicks', 'orders', 'revenue'] as const;
    for (const field of fields) {
      if (!Number.isFinite(side[field]) || side[field] < 0) problems.push(`the ${sideName}'s ${field} is ${side[field]}`);
    }
    if (side.conversions > side.visitors) problems.push(`the ${sideName} has more conversions (${count(side.conversions)}) than visitors (${count(side.visitors)})`);
    if (side.carts > side.visitors) problems.push(`the ${sideName} has more carts (${count(side.carts)}) than visitors (${count(side.visitors)})`);
  }
  return problems;
}

/** A test's facts with the completed days' counts they are kept beside. */
export type DecisionData = { facts: DecisionFacts; days: DecisionDay[] };

/**
 * What a call is made from that no setting changes (the goal, its figures, the data checks, the
 * completed days), or null for a test that cannot have a call (no variant).
 */
export function decisionFacts(test: Test, results: TestResults): DecisionData | null {
  if (test.variant === null) return null;
  const metric = goalMetricOf(test);
  const known = { goal: test.goal, metric, status: test.status, automaticallyEndAt: test.automaticallyEndAt };
  if (metric === null) {
    const facts = { ...known, startDay: null, goalFigures: null, dataGuards: [], srmMismatch: false, impossible: [], dailyAlerts: false };
    return { facts, days: [] };
  }
  const goal = goalFigures(test, results);
  const { days: allDays, skippedKeys } = dailySeries(results.daily);
  const startDay = dayNumberOfTimestamp(test.startAt) ?? allDays[0]?.dayNumber ?? null;
  // The last day of an active test is still in progress: it is not a look yet.
  const days = test.status === 'active' && allDays.length > 0 ? allDays.slice(0, -1) : allDays;

  // 1. Data checks.
  const guards: Guard[] = [];
  const srm = sampleRatioTest(results.control.visitors, results.variant.visitors, test.control.traffic, test.variant.traffic);
  guards.push({
    id: 'sample-ratio',
    ok: !srm.mismatch,
    text: srm.mismatch
      ? `visitors split ${plainPercent(srm.observedControlShare ?? 0)} / ${plainPercent(1 - (srm.observedControlShare ?? 0))} against ${plainPercent(srm.expectedControlShare ?? 0)} / ${plainPercent(1 - (srm.expectedControlShare ?? 0))} configured, p ${srm.pValue !== null && srm.pValue < 0.0001 ? '< 0.0001' : `= ${srm.pValue?.toFixed(4)}`}`
      : srm.judged
        ? 'visitors split as configured'
        : `split not judged: ${srm.reason ?? ''}`.trim(),
  });
  const impossible = impossibleCounts(results);
  guards.push({ id: 'counts', ok: impossible.length === 0, text: impossible.length === 0 ? 'counts can all be true' : impossible.join('; ') });
  const dailyAlerts = dailyTotalsMismatch({
    test,
    results,
    days: allDays,
    skippedKeys,
    srm: { ...srm, onsetDate: null },
    goalRate: metric,
    goalAnalysis: null,
    now: 0,
  });
  guards.push({
    id: 'daily-totals',
    ok: dailyAlerts.length === 0,
    text: dailyAlerts.length === 0 ? 'daily figures add up to the totals' : dailyAlerts.map((a) => a.message).join(' '),
  });
  const facts = {
    ...known,
    startDay,
    goalFigures: goal,
    dataGuards: guards,
    srmMismatch: srm.mismatch,
    impossible,
    dailyAlerts: dailyAlerts.length > 0,
  };
  return { facts, days: days.map((day) => ({ dayNumber: day.dayNumber, control: sumsOf(day.control), variant: sumsOf(day.variant) })) };
}
