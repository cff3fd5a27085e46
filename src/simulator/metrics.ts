// The simulator's arithmetic of metrics: counts, the rates derived from them, and lifts.
// Metric ids, goals and units are Splitbook's one definition in src/shared/domain/metrics.ts.
// Revenue, totalRevenue and initialSubscriptionRevenue are kept in whole cents here so sums stay exact;
// changeRevenue = (variant.rpv - control.rpv) * variant.visitors.
import { METRICS, relativeLift, type Metric } from '#shared/domain/metrics';

export { GOALS, METRICS, type Goal, type Metric } from '#shared/domain/metrics';

/** The metric a test's goal names; an unknown goal falls back to conversion rate. */
export function metricOfGoal(goal: string): Metric {
  return METRICS.find((metric) => metric.goal === goal) ?? METRICS[0];
}

/** The counts the rates are ratios of (revenue kept in whole cents so sums stay exact). */
export type Counts = {
  visitors: number;
  visits: number;
  clicks: number;
  carts: number;
  conversions: number;
  orders: number;
  totalOrders: number;
  totalConversions: number;
  initialSubscriptionConversions: number;
  initialSubscriptionOrders: number;
  revenueCents: number;
  totalRevenueCents: number;
  initialSubscriptionRevenueCents: number;
};

export function zeroCounts(): Counts {
  return {
    visitors: 0,
    visits: 0,
    clicks: 0,
    carts: 0,
    conversions: 0,
    orders: 0,
    totalOrders: 0,
    totalConversions: 0,
    initialSubscriptionConversions: 0,
    initialSubscriptionOrders: 0,
    revenueCents: 0,
    totalRevenueCents: 0,
    initialSubscriptionRevenueCents: 0,
  };
}

/** Adds `source` into `target`. Mutating and spelled out: results sum thousands of cells per request. */
export function addInto(target: Counts, source: Counts): void {
  target.visitors += source.visitors;
  target.visits += source.visits;
  target.clicks += source.clicks;
  target.carts += source.carts;
  target.conversions += source.conversions;
  target.orders += source.orders;
  target.totalOrders += source.totalOrders;
  target.totalConversions += source.totalConversions;
  target.initialSubscriptionConversions += source.initialSubscriptionConversions;
  target.initialSubscriptionOrders += source.initialSubscriptionOrders;
  target.revenueCents += source.revenueCents;
  target.totalRevenueCents += source.totalRevenueCents;
  target.initialSubscriptionRevenueCents += source.initialSubscriptionRevenueCents;
}

function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}

export type Rates = {
  cvr: number;
  cnv: number;
  ctr: number;
  acr: number;
  aov: number;
  rpv: number;
};

export function ratesOf(counts: Counts): Rates {
  const revenue = counts.revenueCents / 100;
  return {
    cvr: ratio(counts.conversions, counts.visitors) * 100,
    cnv: ratio(counts.conversions, counts.visits) * 100,
    ctr: ratio(counts.clicks, counts.visits) * 100,
    acr: ratio(counts.carts, counts.visitors) * 100,
    aov: ratio(revenue, counts.orders),
    rpv: ratio(revenue, counts.visitors),
  };
}

/** Relative lift of the variant over the control, in percent; 0 when the control is 0. */
export function liftPercent(control: number, variant: number): number {
  return relativeLift(control, variant) ?? 0;
}
