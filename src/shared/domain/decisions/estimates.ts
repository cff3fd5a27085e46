// The goal's relative lift on the log scale, θ = log(variant ÷ control), with its variance, from
// cumulative counts (rates) or from the days so far (revenue). One estimate per look of a decision.
//
// Rates (CVR, ACR, CTR): each visitor is a trial; Var(log p̂) = (1 − p) / events (delta method on a
// binomial). A rate above 1 event per visitor (a store that counts clicks per visitor) is read as a
// Poisson count: Var = 1 / events.
//
// Revenue (RPV, AOV) — REVENUE_DECISION_MODEL: the one estimate of statistics/revenue.ts (days as
// replicates, a jackknife-corrected cluster variance, Student's t with degrees of freedom from the days'
// spread), so the Results tab, the reports and the call read the same figures.
import { revenueEstimate, tMatching, zMatching } from '../statistics/revenue';

export type GoalMetric = 'cvr' | 'acr' | 'ctr' | 'rpv' | 'aov';

export const REVENUE_DECISION_MODEL =
  'Revenue goals are approximate: the API sends revenue totals, not how revenue varies between visitors, ' +
  'so Splitbook treats each day as one sample of the test (a jackknife-corrected spread of the daily ' +
  "totals, paired by day) and reads it against Student's t with degrees of freedom from how heavy the " +
  "days' spread is; revenue per visitor never gets a spread below what the order counts alone imply. " +
  'Checked by simulation on order values as skewed as a lognormal of log-sd 2.'

/** Running sums of one side over days. */
export type SideSums = {
  visitors: number;
  conversions: number;
  carts: number;
  clicks: number;
  orders: number;
  revenue: number;
};

export const EMPTY_SUMS: SideSums = { visitors: 0, conversions: 0, carts: 0, clicks: 0, orders: 0, revenue: 0 };

/** The sums plus one side's counts (a day's statistics, or other sums). */
export function addSide(sums: SideSums, side: SideSums): SideSums {
  return {
    visitors: sums.visitors + side.visitors,
    conversions: sums.conversions + side.conversions,
    carts: sums.carts + side.carts,
    clicks: sums.clicks + side.clicks,
    orders: sums.orders + side.orders,
    revenue: sums.revenue + side.revenue,
  };
}

export function sumsOf(side: SideSums): SideSums {
  return addSide(EMPTY_SUMS, side);
}

/** The events a goal counts: conversions, carts, clicks, or orders for the revenue goals. */
export function eventsOf(sums: SideSums, metric: GoalMetric): number {
  switch (metric) {
    case 'cvr':
      return sums.conversions;
    case 'acr':
      return sums.carts;
    case 'ctr':
      return sums.clicks;
    case 'rpv':
    case 'aov':
      return sums.orders;
  }
}

/** The events' name, plural, for sentences: "1,204 vs 1,353 conversions". */
export function eventsName(metric: GoalMetric): string {
  return metric === 'cvr' ? 'conversions' : metric === 'acr' ? 'carts' : metric === 'ctr' ? 'clicks' : 'orders';
}

/** The goal's value on a side: a rate as a fraction, or money. Null without its denominator. */
export function valueOf(sums: SideSums, metric: GoalMetric): number | null {
  switch (metric) {
    case 'cvr':
    case 'acr':
    case 'ctr':
      return sums.visitors > 0 ? eventsOf(sums, metric) / sums.visitors : null;
    case 'rpv':
      return sums.visitors > 0 ? sums.revenue / sums.visitors : null;
    case 'aov':
      return sums.orders > 0 ? sums.revenue / sums.orders : null;
  }
}

export type Estimate = {
  /** log(variant ÷ control). */
  theta: number;
  variance: number;
  /** Degrees of freedom of the variance: Infinity for a rate's (binomial), the days' for revenue. */
  df: number;
  control: number;
  variant: number;
};

/** The estimate's statistic θ/√Var on the normal scale (a t statistic mapped by its tail area). */
export function zOf(estimate: Estimate): number {
  return zMatching(estimate.theta / Math.sqrt(estimate.variance), estimate.df);
}

/** Half the width (log scale) of the estimate's interval at the normal-scale boundary c. */
export function halfWidth(estimate: Estimate, c: number): number {
  return tMatching(c, estimate.df) * Math.sqrt(estimate.variance);
}

function rateVariance(events: number, trials: number): number {
  const p = events / trials;
  return p < 1 ? (1 - p) / events : 1 / events;
}

/** The log lift of a rate and its variance; null while a side has no event. */
export function rateEstimate(control: SideSums, variant: SideSums, metric: 'cvr' | 'acr' | 'ctr'): Estimate | null {
  const a = eventsOf(control, metric);
  const b = eventsOf(variant, metric);
  if (!(a > 0 && b > 0 && control.visitors > 0 && variant.visitors > 0)) return null;
  const pa = a / control.visitors;
  const pb = b / variant.visitors;
  return {
    theta: Math.log(pb / pa),
    variance: rateVariance(a, control.visitors) + rateVariance(b, variant.visitors),
    df: Infinity,
    control: pa,
    variant: pb,
  };
}

/** The log lift of RPV or AOV over `days` (the days so far, summing to `control` and `variant`). */
export function revenueEstimateOf(
  days: readonly { control: SideSums; variant: SideSums }[],
  control: SideSums,
  variant: SideSums,
  metric: 'rpv' | 'aov',
): Estimate | null {
  const estimate = revenueEstimate(days, metric, { control, variant });
  return estimate === null ? null : { theta: estimate.theta, variance: estimate.variance, df: estimate.df, control: estimate.control, variant: estimate.variant };
}

/** The goal's estimate from sums (and, for revenue, the days they sum). */
export function estimateOf(
  metric: GoalMetric,
  control: SideSums,
  variant: SideSums,
  days: readonly { control: SideSums; variant: SideSums }[],
): Estimate | null {
  if (metric === 'rpv' || metric === 'aov') return revenueEstimateOf(days, control, variant, metric);
  return rateEstimate(control, variant, metric);
}
