// Revenue metrics (RPV, AOV) from daily totals: the one estimate of their lift, its variance and its
// degrees of freedom, used by the Results tab, the reports and the decision alike.
//
// The API sends revenue totals, not how revenue varies between visitors (one big order and many small
// ones look the same), so an exact interval is impossible. Each day of the test, though, is a small
// independent replicate of it, and the day-to-day spread of the daily totals estimates the spread of
// the whole. The ratio estimator per side with days as clusters, paired by day:
//   ρ = Σ revenue_d / Σ n_d per side (n: visitors for RPV, orders for AOV);
//   each day's influence on log ρ: (revenue_d − ρ·n_d) / Σ revenue, divided by (1 − h_d), h_d = n_d / Σ n
//   (the jackknife's small-sample correction of a cluster-robust variance, "CR3": a day that holds much
//   of a side's traffic would otherwise pull the estimate towards itself and look less variable);
//   Var(log ρB − log ρA) = Σ_d (influenceB_d − influenceA_d)²  (paired, so a busy Saturday on both sides
//   is not counted as noise).
// With few days the spread is itself uncertain, and with heavy-tailed order values far more so than a
// normal sample's: the statistic is read against Student's t with effective degrees of freedom from the
// replicates' kurtosis (Satterthwaite: Var(s²)/σ⁴ ≈ 2/(D − 1) + κ/D, with κ twice the small-sample
// adjusted sample kurtosis G₂, see KURTOSIS_WEIGHT), never more than D − 1. Checked by simulation on lognormal order values of log-sd
// 1.0 to 2.0 (docs/decisions.md). For RPV the variance is never below what the order counts alone
// imply (as if every order had the same value): a true lower bound, since order values can only add
// spread. The result is always labelled approximate, and no interval is shown before REVENUE_MIN_DAYS
// days with data on both sides.
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import erfc from '@stdlib/math-base-special-erfc';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { Day } from './daily';
import type { RevenueLift } from './schemas';

export const REVENUE_MIN_DAYS = 7;

export const REVENUE_EXPLANATION =
  'Revenue per visitor and average order value: the store API sends revenue totals but not how revenue ' +
  'varies between visitors, so no exact interval can be computed. Splitbook treats each day of the test ' +
  'as one sample and estimates the interval from the day-to-day spread (a jackknife-corrected cluster ' +
  "variance, read against Student's t with degrees of freedom from the days' spread). It is approximate, " +
  `and shown only once there are at least ${REVENUE_MIN_DAYS} days with data on both sides.`;

export type RevenueMetric = 'rpv' | 'aov';

/** What a revenue estimate reads of a day: each side's visitors, orders and revenue. */
export type RevenueSide = Pick<Day['control'], 'visitors' | 'orders' | 'revenue'>;
export type RevenueDay = { control: RevenueSide; variant: RevenueSide };

/** The log lift of RPV or AOV, its variance and the degrees of freedom its spread is read with. */
export type RevenueEstimate = {
  /** log(variant ÷ control). */
  theta: number;
  variance: number;
  /** Effective degrees of freedom of the variance (≤ days − 1). */
  df: number;
  control: number;
  variant: number;
  /** Days with data on both sides. */
  days: number;
};

function denominatorOf(side: RevenueSide, metric: RevenueMetric): number {
  return metric === 'rpv' ? side.visitors : side.orders;
}

/** Each side's sums over the days (visitors, orders, revenue). */
export function revenueSums(days: readonly RevenueDay[]): { control: RevenueSide; variant: RevenueSide } {
  const control = { visitors: 0, orders: 0, revenue: 0 };
  const variant = { visitors: 0, orders: 0, revenue: 0 };
  for (const day of days) {
    control.visitors += day.control.visitors;
    control.orders += day.control.orders;
    control.revenue += day.control.revenue;
    variant.visitors += day.variant.visitors;
    variant.orders += day.variant.orders;
    variant.revenue += day.variant.revenue;
  }
  return { control, variant };
}

/**
 * The estimate over `days` (sides' sums given, or summed here); null with fewer than 2 days with data
 * on both sides, or no orders or revenue on a side.
 */
export function revenueEstimate(
  days: readonly RevenueDay[],
  metric: RevenueMetric,
  sums: { control: RevenueSide; variant: RevenueSide } = revenueSums(days),
): RevenueEstimate | null {
  const { control, variant } = sums;
  if (!(control.orders > 0 && variant.orders > 0 && control.revenue > 0 && variant.revenue > 0)) return null;
  const nA = denominatorOf(control, metric);
  const nB = denominatorOf(variant, metric);
  if (!(nA > 0 && nB > 0)) return null;
  const rhoA = control.revenue / nA;
  const rhoB = variant.revenue / nB;
  let used = 0;
  let squares = 0;
  let fourths = 0;
  for (const day of days) {
    const dA = denominatorOf(day.control, metric);
    const dB = denominatorOf(day.variant, metric);
    if (!(dA > 0 && dB > 0)) continue;
    used += 1;
    const influenceA = (day.control.revenue - rhoA * dA) / (control.revenue * Math.max(1e-9, 1 - dA / nA));
    const influenceB = (day.variant.revenue - rhoB * dB) / (variant.revenue * Math.max(1e-9, 1 - dB / nB));
    const u = influenceB - influenceA;
    squares += u * u;
    fourths += u * u * u * u;
  }
  if (used < 2) return null;
  let variance = squares;
  if (metric === 'rpv') {
    // The order counts' own variance: a bound no spread of order values can go under.
    const floor = (1 - control.orders / control.visitors) / control.orders + (1 - variant.orders / variant.visitors) / variant.orders;
    variance = Math.max(variance, floor);
  }
  return {
    theta: Math.log(rhoB / rhoA),
    variance,
    df: effectiveDf(used, squares, fourths),
    control: rhoA,
    variant: rhoB,
    days: used,
  };
}

/**
 * How much the replicates' kurtosis counts. A sample of 28 days or fewer cannot show a kurtosis much
 * above its size, while daily totals of order values as skewed as a lognormal of log-sd 2 have one in
 * the thousands: the sample understates the tail, and counting it twice is what the simulation shows
 * keeps A/A false calls under 5% at log-sd 1 to 2 (docs/decisions.md has the figures with 1 and 2).
 */
export const KURTOSIS_WEIGHT = 2;

/**
 * Degrees of freedom of a variance from `count` replicates whose squares and fourth powers sum as
 * given: 2 / (2/(D − 1) + κ/D) with κ the adjusted sample excess kurtosis (G₂), between 1 and D − 1.
 */
export function effectiveDf(count: number, squares: number, fourths: number): number {
  const most = count - 1;
  if (count <= 3 || !(squares > 0)) return Math.max(1, most);
  const g2 = (count * fourths) / (squares * squares) - 3;
  const kurtosis = (((count + 1) * g2 + 6) * (count - 1)) / ((count - 2) * (count - 3));
  const df = 2 / (2 / most + (KURTOSIS_WEIGHT * Math.max(0, kurtosis)) / count);
  return Math.min(most, Math.max(1, df));
}

/** The t (df) cutting off the same upper tail as z does of a normal: P(T > t) = P(Z > z). */
export function tMatching(z: number, df: number): number {
  if (!Number.isFinite(df) || !Number.isFinite(z)) return z;
  const tail = 0.5 * erfc(z / Math.SQRT2);
  if (!(tail > 0)) return Infinity;
  return -tQuantile(tail, df);
}

/** The z cutting off the same upper tail as t (df) does: the t statistic on the normal scale. */
export function zMatching(t: number, df: number): number {
  if (!Number.isFinite(df)) return t;
  const tail = tCdf(-Math.abs(t), df);
  if (!(tail > 0)) return Math.sign(t) * 40;
  return -Math.sign(t) * normalQuantile(tail, 0, 1);
}

/** The lift interval of RPV or AOV at `level`, or null with too few days or no revenue. */
export function revenueLift(days: readonly RevenueDay[], metric: RevenueMetric, level = 0.95): RevenueLift | null {
  const estimate = revenueEstimate(days, metric);
  if (estimate === null || estimate.days < REVENUE_MIN_DAYS) return null;
  const half = tMatching(normalQuantile(1 - (1 - level) / 2, 0, 1), estimate.df) * Math.sqrt(estimate.variance);
  return {
    metric,
    control: estimate.control,
    variant: estimate.variant,
    observedLift: Math.expm1(estimate.theta),
    liftCiLow: Math.expm1(estimate.theta - half),
    liftCiHigh: Math.expm1(estimate.theta + half),
    days: estimate.days,
    df: estimate.df,
    approximate: true,
  };
}
