// Data-quality alerts on a test's results: each rule, its threshold, and a sentence a client understands.
import type { SideStatistics, Test, TestResults } from '../../api';
import type { Day } from './daily';
import { dateOfDayNumber, dayNumberOf, dayNumberOfTimestamp, DAY_MS } from './daily';
import type { Alert, BinaryMetricAnalysis, SrmAnalysis } from './schemas';
import { fitsOf, RATE_NAMES, RATE_READINGS } from '../decisions/rate-readings';

/** A 'significant' call needs at least this many days of data… */
export const EARLY_MIN_DAYS = 3;
/** …and at least this many orders on each side. */
export const EARLY_MIN_ORDERS = 30;
/** A goal lift beyond ±50% is rarely real in e-commerce: more often tracking or assignment is broken. */
export const IMPLAUSIBLE_LIFT = 0.5;
/** The API's P(win) and ours may differ by this much before we mention it (different priors/models). */
export const PROBABILITY_MODEL_GAP = 0.1;
export const PROBABILITY_SUM_TOLERANCE = 1e-6;
/** A rate may differ from its counts by this much (percentage points or currency units)… */
export const RATE_ABSOLUTE_TOLERANCE = 0.01;
/** …plus this share of its value (the API may round). */
export const RATE_RELATIVE_TOLERANCE = 1e-3;
/** Summed daily revenue may differ from the total by this much per day (cent rounding) plus 1e-9 of it. */
export const REVENUE_TOLERANCE_PER_DAY = 0.01;

export type AlertInput = {
  test: Test;
  results: TestResults;
  days: readonly Day[];
  skippedKeys: readonly string[];
  srm: SrmAnalysis;
  goalRate: string | null;
  /** Our analysis of the goal metric when it is a binary rate. */
  goalAnalysis: BinaryMetricAnalysis | null;
  now: number;
};

const percent = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** Called significant on too little evidence: before EARLY_MIN_DAYS days of data or EARLY_MIN_ORDERS orders a side. */
export function earlySignificance({ results, days }: AlertInput): Alert[] {
  const tier = String(results.lifecycle.tier).toLowerCase();
  if (tier !== 'significant') return [];
  // Days of data up to the day the tier was reached (all days when the API does not say).
  const reached = results.lifecycle.tierReachedAt === null ? null : dayNumberOf(results.lifecycle.tierReachedAt);
  const dataDays = days.filter(
    (day) => (reached === null || day.dayNumber <= reached) && day.control.visitors + day.variant.visitors > 0,
  ).length;
  const fewestOrders = Math.min(results.control.orders, results.variant.orders);
  if (dataDays >= EARLY_MIN_DAYS && fewestOrders >= EARLY_MIN_ORDERS) return [];
  const why =
    dataDays < EARLY_MIN_DAYS
      ? `after only ${dataDays} day${dataDays === 1 ? '' : 's'} of data (at least ${EARLY_MIN_DAYS} needed)`
      : `with only ${fewestOrders} orders on one side (at least ${EARLY_MIN_ORDERS} needed)`;
  return [
    {
      code: 'early-significance',
      severity: 'warning',
      message: `The store calls this test significant ${why}: early results often fade, so wait before acting.`,
    },
  ];
}

function goalRateOf(side: SideStatistics, rate: string): number | null {
  switch (rate) {
    case 'cvr':
      return side.visitors > 0 ? side.conversions / side.visitors : null;
    case 'acr':
      return side.visitors > 0 ? side.carts / side.visitors : null;
    case 'ctr':
      return side.visitors > 0 ? side.clicks / side.visitors : null;
    case 'rpv':
      return side.visitors > 0 ? side.revenue / side.visitors : null;
    case 'aov':
      return side.orders > 0 ? side.revenue / side.orders : null;
    default:
      return null;
  }
}

/** The goal metric moved by more than IMPLAUSIBLE_LIFT either way (computed from the counts). */
export function implausibleLift({ results, goalRate }: AlertInput): Alert[] {
  if (goalRate === null) return [];
  const control = goalRateOf(results.control, goalRate);
  const variant = goalRateOf(results.variant, goalRate);
  if (control === null || variant === null || control <= 0) return [];
  const lift = variant / control - 1;
  if (Math.abs(lift) <= IMPLAUSIBLE_LIFT) return [];
  return [
    {
      code: 'implausible-lift',
      severity: 'warning',
      message: `The goal metric moved by ${lift > 0 ? '+' : ''}${percent(lift)}; changes this large are rare and often come from a tracking or setup problem.`,
    },
  ];
}

export function sampleRatioMismatch({ srm }: AlertInput): Alert[] {
  if (!srm.mismatch || srm.expectedControlShare === null || srm.observedControlShare === null) return [];
  const since = srm.onsetDate === null ? '' : ` (since ${srm.onsetDate})`;
  return [
    {
      code: 'sample-ratio-mismatch',
      severity: 'warning',
      message:
        `Visitors did not split as configured: the control got ${percent(srm.observedControlShare)} instead of ` +
        `${percent(srm.expectedControlShare)}${since}. Something drops or misroutes visitors, so the results may be wrong.`,
    },
  ];
}

/** Orders and revenue add up over days; daily unique visitors may not (a visitor can come back), so they are not checked. */
export function dailyTotalsMismatch({ results, days }: AlertInput): Alert[] {
  if (days.length === 0) return [];
  const alerts: Alert[] = [];
  for (const sideName of ['control', 'variant'] as const) {
    let orders = 0;
    let revenue = 0;
    for (const day of days) {
      orders += day[sideName].orders;
      revenue += day[sideName].revenue;
    }
    const total = results[sideName];
    const problems: string[] = [];
    if (orders !== total.orders) problems.push(`${orders} orders by day against ${total.orders} in total`);
    const tolerance = REVENUE_TOLERANCE_PER_DAY * days.length + 1e-9 * Math.abs(total.revenue);
    if (Math.abs(revenue - total.revenue) > tolerance) {
      problems.push(`revenue of ${revenue.toFixed(2)} by day against ${total.revenue.toFixed(2)} in total`);
    }
    if (problems.length > 0) {
      alerts.push({
        code: 'daily-totals-mismatch',
        severity: 'warning',
        message: `The daily figures of the ${sideName} do not add up to its totals (${problems.join('; ')}): some data may be missing or counted twice.`,
      });
    }
  }
  return alerts;
}

/**
 * Days missing from the daily series: any gap between its first and last day, and days of the test's run
 * (start to end, or to today for a running test) before or after it. The first and last day of the run
 * may be partial, so they may be absent without an alert.
 */
export function missingDays({ test, days, skippedKeys, now }: AlertInput): Alert[] {
  // Arithmetic over the sorted, distinct day numbers rather than a walk of every day of the run: a test
  // that ran for years costs as little as one that ran for a week.
  const first = days[0]?.dayNumber ?? null;
  const last = days[days.length - 1]?.dayNumber ?? null;
  const start = dayNumberOfTimestamp(test.startAt);
  const end = dayNumberOfTimestamp(test.endAt) ?? Math.floor(now / DAY_MS);
  /** Ranges [from, to] of missing days, in order. */
  const ranges: [number, number][] = [];
  // Inner days of the run only; the edge days may be partial.
  const lo = start === null || end < start ? null : start + 1;
  const hi = start === null || end < start ? null : end - 1;
  if (lo !== null && hi !== null && lo <= hi && (first === null || lo < first)) {
    ranges.push([lo, first === null ? hi : Math.min(hi, first - 1)]);
  }
  for (let k = 1; k < days.length; k++) {
    const before = days[k - 1]?.dayNumber ?? 0;
    const after = days[k]?.dayNumber ?? 0;
    if (after > before + 1) ranges.push([before + 1, after - 1]);
  }
  if (lo !== null && hi !== null && last !== null && hi > last) ranges.push([Math.max(lo, last + 1), hi]);
  const count = ranges.reduce((sum, [from, to]) => sum + (to - from + 1), 0);
  const alerts: Alert[] = [];
  if (count > 0) {
    const firstThree: number[] = [];
    for (const [from, to] of ranges) for (let d = from; d <= to && firstThree.length < 3; d++) firstThree.push(d);
    const shown = firstThree.map(dateOfDayNumber).join(', ');
    alerts.push({
      code: 'missing-days',
      severity: 'warning',
      message: `${count} day${count === 1 ? ' is' : 's are'} missing from the daily figures (${shown}${count > 3 ? ', …' : ''}): the curves over time have gaps.`,
    });
  }
  if (skippedKeys.length > 0) {
    alerts.push({
      code: 'missing-days',
      severity: 'info',
      message: `${skippedKeys.length} daily entr${skippedKeys.length === 1 ? 'y was' : 'ies were'} not a date Splitbook could read and ${skippedKeys.length === 1 ? 'was' : 'were'} left out.`,
    });
  }
  return alerts;
}

/** The store's P(win) and ours differ by more than PROBABILITY_MODEL_GAP: a different model, not an error. */
export function probabilityModelDiffers({ results, goalAnalysis }: AlertInput): Alert[] {
  if (goalAnalysis === null) return [];
  const theirs = results.variantProbabilityWin;
  if (!(theirs >= 0 && theirs <= 1)) return [];
  if (Math.abs(theirs - goalAnalysis.pWin) <= PROBABILITY_MODEL_GAP) return [];
  return [
    {
      code: 'probability-model-differs',
      severity: 'info',
      message: `The store puts the variant's chance to win at ${percent(theirs)}, Splitbook at ${percent(goalAnalysis.pWin)}: the store uses a different model.`,
    },
  ];
}

/** The two probabilities to win (0..1 as the app reads them) should sum to 1. */
export function probabilitiesSum({ results }: AlertInput): Alert[] {
  const sum = results.controlProbabilityWin + results.variantProbabilityWin;
  if (Math.abs(sum - 1) <= PROBABILITY_SUM_TOLERANCE) return [];
  const hint = Math.abs(sum - 100) <= 1e-4 ? ' They look like percentages.' : '';
  return [
    {
      code: 'probabilities-do-not-sum-to-one',
      severity: 'warning',
      message: `The store's chances to win of the control and the variant add up to ${sum}, not 1.${hint}`,
    },
  ];
}

/**
 * Counts that cannot all be true under any reading, and rates that match their counts under no reading
 * Splitbook knows (decisions/rate-readings.ts: the API defines no rate, so a store whose rates fit some
 * reading is consistent). More clicks than visitors is no contradiction: a store may count clicks per visitor.
 */
export function contradictoryCounts({ results }: AlertInput): Alert[] {
  const alerts: Alert[] = [];
  for (const sideName of ['control', 'variant'] as const) {
    const side = results[sideName];
    const problems: string[] = [];
    if (side.conversions > side.visitors) problems.push(`more conversions (${side.conversions}) than visitors (${side.visitors})`);
    if (side.carts > side.visitors) problems.push(`more carts (${side.carts}) than visitors (${side.visitors})`);
    for (const rate of RATE_NAMES) {
      if (side[rate] === 0 && RATE_READINGS[rate].every((reading) => side[reading.numerator] === 0)) continue;
      if (fitsOf(side, rate).length > 0) continue;
      problems.push(`${rate.toUpperCase()} is ${Number(side[rate].toPrecision(4))}, which fits none of its readings (${RATE_READINGS[rate].map((r) => r.label).join(', ')}; as a percent or a fraction)`);
    }
    const ratio = (num: number, den: number): number => (den > 0 ? num / den : 0);
    const money: [string, number, number][] = [
      ['aov', side.aov, ratio(side.revenue, side.orders)],
      ['rpv', side.rpv, ratio(side.revenue, side.visitors)],
    ];
    for (const [name, reported, fromCounts] of money) {
      if (Math.abs(reported - fromCounts) <= RATE_ABSOLUTE_TOLERANCE + RATE_RELATIVE_TOLERANCE * Math.abs(fromCounts)) continue;
      problems.push(`${name.toUpperCase()} is ${Number(reported.toPrecision(4))} but its counts give ${Number(fromCounts.toPrecision(4))}`);
    }
    if (problems.length > 0) {
      alerts.push({
        code: 'contradictory-counts',
        severity: 'warning',
        message: `The ${sideName}'s figures contradict each other: ${problems.join('; ')}.`,
      });
    }
  }
  return alerts;
}

const RULES = [
  earlySignificance,
  implausibleLift,
  sampleRatioMismatch,
  dailyTotalsMismatch,
  missingDays,
  probabilityModelDiffers,
  probabilitiesSum,
  contradictoryCounts,
];

export function dataQualityAlerts(input: AlertInput): Alert[] {
  return RULES.flatMap((rule) => rule(input));
}
