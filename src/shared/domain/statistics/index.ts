// Splitbook's own statistics for a test: one entry, analyseTest, and a per-segment helper.
// Pure: no Node, DOM or simulator imports, so the renderer and the core can both run it.
import type { Test, TestResults } from '../../api';
import { SEGMENTS } from '../../api/results';
import { metricOfGoal } from '../metrics';
import { dataQualityAlerts } from './alerts';
import { analyseBinary, analysePerMetric } from './binary';
import { dailySeries } from './daily';
import { REVENUE_EXPLANATION, revenueLift } from './revenue';
import type { Alert, GoalRate, SegmentAnalysis, SrmAnalysis, TestAnalysis } from './schemas';
import { sampleRatioTest, srmOnset } from './srm';
import type { z } from 'zod';

export * from './schemas';
export { analyseBinary, analysePerMetric, binaryCounts } from './binary';
export { compareRates, exactProbabilityBeats, EXACT_MAX_TERMS } from './probability';
export { liftInterval, CREDIBLE_LEVEL } from './interval';
export { posteriorOf } from './posterior';
export { sampleRatioTest, srmOnset, SRM_ALARM_P, SRM_MIN_TOTAL_VISITORS, SRM_MIN_EXPECTED_PER_SIDE } from './srm';
export { revenueLift, REVENUE_EXPLANATION, REVENUE_MIN_DAYS } from './revenue';
export { overTime } from './over-time';
export { dailySeries, dayNumberOf, dateOfDayNumber } from './daily';
export * from './alerts';

export type AnalyseOptions = {
  /** The clock, for the missing-days rule of a running test (default: Date.now()). */
  now?: number;
};

function srmOf(test: Test, results: TestResults, days: ReturnType<typeof dailySeries>['days']): SrmAnalysis {
  if (test.variant === null) {
    return {
      judged: false,
      reason: 'The test has no variant.',
      chiSquare: null,
      pValue: null,
      mismatch: false,
      expectedControlShare: null,
      observedControlShare: null,
      onsetDate: null,
    };
  }
  const check = sampleRatioTest(results.control.visitors, results.variant.visitors, test.control.traffic, test.variant.traffic);
  return {
    ...check,
    onsetDate: check.mismatch ? srmOnset(days, test.control.traffic, test.variant.traffic) : null,
  };
}

function goalMetricOf(test: Test): z.infer<typeof GoalRate> | null {
  return metricOfGoal(test.goal)?.rate ?? null;
}

export function analyseTest(test: Test, results: TestResults, opts: AnalyseOptions = {}): TestAnalysis {
  const { days, skippedKeys } = dailySeries(results.daily);
  const goalMetric = goalMetricOf(test);
  const perMetric = analysePerMetric(results.control, results.variant);
  const rpv = revenueLift(days, 'rpv');
  const aov = revenueLift(days, 'aov');
  const revenue = rpv === null && aov === null ? null : { approximate: true as const, explanation: REVENUE_EXPLANATION, rpv, aov };
  const srm = srmOf(test, results, days);
  const goalAnalysis =
    goalMetric === 'cvr' || goalMetric === 'acr' || goalMetric === 'ctr' ? perMetric[goalMetric] : null;
  const alerts = dataQualityAlerts({
    test,
    results,
    days,
    skippedKeys,
    srm,
    goalRate: goalMetric,
    goalAnalysis,
    now: opts.now ?? Date.now(),
  });
  return { goalMetric, perMetric, revenue, srm, alerts };
}

/**
 * The data-quality alerts alone, as the test list caches them: the same alerts as analyseTest's, for a
 * fraction of the work (only the goal metric is analysed, and no revenue interval is estimated).
 */
export function testAlerts(test: Test, results: TestResults, opts: AnalyseOptions = {}): Alert[] {
  const { days, skippedKeys } = dailySeries(results.daily);
  const goalMetric = goalMetricOf(test);
  const goalAnalysis =
    goalMetric === 'cvr' || goalMetric === 'acr' || goalMetric === 'ctr'
      ? analyseBinary(results.control, results.variant, goalMetric)
      : null;
  return dataQualityAlerts({
    test,
    results,
    days,
    skippedKeys,
    srm: srmOf(test, results, days),
    goalRate: goalMetric,
    goalAnalysis,
    now: opts.now ?? Date.now(),
  });
}

/** The binary rates of each segment (mobile, desktop, new, returning); null where a side lacks the segment. */
export function analyseSegments(results: TestResults): SegmentAnalysis {
  const out: SegmentAnalysis = { mobile: null, desktop: null, new: null, returning: null };
  for (const segment of SEGMENTS) {
    const control = results.control[segment];
    const variant = results.variant[segment];
    out[segment] = control && variant ? analysePerMetric(control, variant) : null;
  }
  return out;
}
