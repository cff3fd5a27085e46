// Revenue metrics (RPV, AOV): an approximate lift interval that treats each day as one sample.
//
// The decision: the API gives revenue totals, not the spread of revenue between visitors (one big order
// and many small ones look the same), so an exact interval is impossible. Each day of the test, though, is
// a small independent replicate of it, so the day-to-day spread of the daily totals estimates the spread
// of the whole. We use the delta method on the ratio estimator with days as clusters:
//   ρ = Σ revenue_d / Σ denominator_d per side (denominator: visitors for RPV, orders for AOV);
//   influence of day d on log ρ: (revenue_d - ρ·denominator_d) / Σ revenue;
//   Var(log ρB - log ρA) ≈ D/(D-1) · Σ_d (influenceB_d - influenceA_d)²  (paired by day, so a busy
//   Saturday on both sides does not count as noise);
//   interval = exp(log(ρB/ρA) ± z·sd) - 1.
// With few days the spread itself is too uncertain, so nothing is shown before REVENUE_MIN_DAYS days.
// The result is always labelled approximate.
import normalQuantile from '@stdlib/stats-base-dists-normal-quantile';
import type { Day } from './daily';

export const REVENUE_MIN_DAYS = 7;

export const REVENUE_EXPLANATION =
  'Revenue per visitor and average order value: the store API sends revenue totals but not how revenue ' +
  'varies between visitors, so no exact interval can be computed. Splitbook treats each day of the test ' +
  `as one sample and estimates the interval from the day-to-day spread (delta method). It is approximate, ` +
  `and shown only once there are at least ${REVENUE_MIN_DAYS} days with data on both sides.`;

export type RevenueMetric = 'rpv' | 'aov';

export type RevenueLift = {
  metric: RevenueMetric;
  /** Per side, from the summed daily series (may differ slightly from the API's totals). */
  control: number;
  variant: number;
  /** Relative lift as a fraction (0.05 = +5%). */
  observedLift: number;
  liftCiLow: number;
  liftCiHigh: number;
  days: number;
  approximate: true;
};

/** What revenueLift reads of a day: each side's visitors, orders and revenue. */
export type RevenueSide = Pick<Day['control'], 'visitors' | 'orders' | 'revenue'>;
export type RevenueDay = { control: RevenueSide; variant: RevenueSide };

/** The day-cluster delta-method lift interval of RPV or AOV, or null with too few days or no revenue. */
export function revenueLift(days: readonly RevenueDay[], metric: RevenueMetric, level = 0.95): RevenueLift | null {
  const denominator = (side: RevenueSide): number => (metric === 'rpv' ? side.visitors : side.orders);
  const used = days.filter((day) => denominator(day.control) > 0 && denominator(day.variant) > 0);
  if (used.length < REVENUE_MIN_DAYS) return null;
  let revenueA = 0;
  let revenueB = 0;
  let nA = 0;
  let nB = 0;
  for (const day of used) {
    revenueA += day.control.revenue;
    revenueB += day.variant.revenue;
    nA += denominator(day.control);
    nB += denominator(day.variant);
  }
  if (!(revenueA > 0) || !(revenueB > 0)) return null;
  const rhoA = revenueA / nA;
  const rhoB = revenueB / nB;
  let sumSquares = 0;
  for (const day of used) {
    const influenceA = (day.control.revenue - rhoA * denominator(day.control)) / revenueA;
    const influenceB = (day.variant.revenue - rhoB * denominator(day.variant)) / revenueB;
    sumSquares += (influenceB - influenceA) ** 2;
  }
  const count = used.length;
  const sd = Math.sqrt((count / (count - 1)) * sumSquares);
  const z = normalQuantile(1 - (1 - level) / 2, 0, 1);
  const logLift = Math.log(rhoB / rhoA);
  return {
    metric,
    control: rhoA,
    variant: rhoB,
    observedLift: rhoB / rhoA - 1,
    liftCiLow: Math.expm1(logLift - z * sd),
    liftCiHigh: Math.expm1(logLift + z * sd),
    days: count,
    approximate: true,
  };
}
