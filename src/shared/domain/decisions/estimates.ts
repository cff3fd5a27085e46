// The goal's relative lift on the log scale, θ = log(variant ÷ control), with its variance, from
// cumulative counts (rates) or from the days so far (revenue). One estimate per look of a decision.
//
// Rates (CVR, ACR, CTR): each visitor is a trial; Var(log p̂) = (1 − p) / events (delta method on a
// binomial). A rate above 1 event per visitor (a store that counts clicks per visitor) is read as a
// Poisson count: Var = 1 / events.
//
// Revenue (RPV, AOV) — REVENUE_DECISION_MODEL: the API sends revenue totals, not how revenue varies
// between visitors, so each day is treated as a replicate of the test (days as clusters, delta method
// on the ratio, paired by day), as the Results tab's approximate interval is. With few days that spread
// can come out implausibly small, so the variance is never below what the order counts alone imply:
// RPV as if every order had the same value (Var ≥ (1 − orders/visitors) / orders a side), AOV as if
// order values varied as much as their mean (coefficient of variation 1: Var ≥ 1 / orders a side).
import type { SideStatistics } from '../../api';
import type { Day } from '../statistics/daily';

export type GoalMetric = 'cvr' | 'acr' | 'ctr' | 'rpv' | 'aov';

export const REVENUE_DECISION_MODEL =
  'Revenue goals are approximate: the API sends revenue totals, not how revenue varies between visitors, ' +
  'so Splitbook treats each day as one sample of the test (delta method on the day-to-day spread, paired ' +
  'by day) and never lets the spread fall below what the order counts alone imply (revenue per visitor: ' +
  'as if every order had the same value; average order value: as if order values varied as much as ' +
  'their mean). The chance to win is a normal approximation on the log of the ratio.';

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
  control: number;
  variant: number;
};

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
    control: pa,
    variant: pb,
  };
}

/** The floor of a revenue estimate's variance from the order counts (see the head of this file). */
function revenueFloor(control: SideSums, variant: SideSums, metric: 'rpv' | 'aov'): number {
  if (metric === 'aov') return 1 / control.orders + 1 / variant.orders;
  return rateVariance(control.orders, control.visitors) + rateVariance(variant.orders, variant.visitors);
}

/**
 * The log lift of RPV or AOV over `days` (the days so far), its variance by days as clusters with the
 * order-count floor; null with fewer than 2 usable days or no orders on a side.
 */
export function revenueEstimate(days: readonly Day[], metric: 'rpv' | 'aov'): Estimate | null {
  const denominator = (side: SideStatistics): number => (metric === 'rpv' ? side.visitors : side.orders);
  let control = EMPTY_SUMS;
  let variant = EMPTY_SUMS;
  let used = 0;
  for (const day of days) {
    control = addSide(control, day.control);
    variant = addSide(variant, day.variant);
    if (denominator(day.control) > 0 && denominator(day.variant) > 0) used += 1;
  }
  return revenueEstimateOf(days, control, variant, metric, used);
}

/** As revenueEstimate, with the sums of `days` already known (the decision keeps them running). */
export function revenueEstimateOf(
  days: readonly { control: SideSums; variant: SideSums }[],
  control: SideSums,
  variant: SideSums,
  metric: 'rpv' | 'aov',
  usedDays: number,
): Estimate | null {
  if (usedDays < 2 || !(control.orders > 0 && variant.orders > 0)) return null;
  if (!(control.revenue > 0 && variant.revenue > 0)) return null;
  const rhoA = valueOf(control, metric);
  const rhoB = valueOf(variant, metric);
  if (rhoA === null || rhoB === null || !(rhoA > 0 && rhoB > 0)) return null;
  const denominator = (side: SideSums): number => (metric === 'rpv' ? side.visitors : side.orders);
  let sumSquares = 0;
  for (const day of days) {
    if (!(denominator(day.control) > 0 && denominator(day.variant) > 0)) continue;
    const influenceA = (day.control.revenue - rhoA * denominator(day.control)) / control.revenue;
    const influenceB = (day.variant.revenue - rhoB * denominator(day.variant)) / variant.revenue;
    sumSquares += (influenceB - influenceA) ** 2;
  }
  const clustered = (usedDays / (usedDays - 1)) * sumSquares;
  return {
    theta: Math.log(rhoB / rhoA),
    variance: Math.max(clustered, revenueFloor(control, variant, metric)),
    control: rhoA,
    variant: rhoB,
  };
}
