// The simulator's one definition of the metrics: goal names, their integer ids, and the units of every rate.
//
// The spec leaves metric definitions and units open; the simulator chooses (and the tests pin):
//   cvr  = conversions / visitors * 100   (percent; a conversion is a visitor who ordered)
//   cnv  = conversions / visits * 100     (percent; conversion per visit)
//   ctr  = clicks / visits * 100          (percent)
//   acr  = carts / visitors * 100         (percent; visitors who added to cart)
//   aov  = revenue / orders               (currency units, e.g. euros; 0 without orders)
//   rpv  = revenue / visitors             (currency units); rps = rpv (deprecated alias)
//   revenue, totalRevenue, initialSubscriptionRevenue: currency units, whole cents
//   lift (and liftByMetric values) = (variant - control) / control * 100 for the metric (percent; 0 when control is 0)
//   changeRevenue = (variant.rpv - control.rpv) * variant.visitors (currency units the variant earned above
//                   or below what the control's rate would have earned on the same visitors)
// Integer keys of liftByMetric and lifecycleByGoal are the metric ids of METRICS below.

export const METRICS = [
  { id: 1, goal: 'conversion-rate', rate: 'cvr' },
  { id: 2, goal: 'revenue-per-visitor', rate: 'rpv' },
  { id: 3, goal: 'average-order-value', rate: 'aov' },
  { id: 4, goal: 'add-to-cart-rate', rate: 'acr' },
  { id: 5, goal: 'click-through-rate', rate: 'ctr' },
] as const;

export type Metric = (typeof METRICS)[number];

export type Goal = Metric['goal'];
export const GOALS: readonly Goal[] = METRICS.map((metric) => metric.goal);

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

/** Relative lift of the variant over the control, in percent. */
export function liftPercent(control: number, variant: number): number {
  return control === 0 ? 0 : ((variant - control) / control) * 100;
}
