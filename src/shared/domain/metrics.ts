// The metrics of a test's results: their integer ids, the goal each measures, and their units.
//
// The spec leaves metric definitions and units open. Splitbook reads them as follows (and the
// simulator produces them so):
//   cvr  = conversions / visitors * 100   (percent; a conversion is a visitor who ordered)
//   cnv  = conversions / visits * 100     (percent; conversion per visit)
//   ctr  = clicks / visits * 100          (percent)
//   acr  = carts / visitors * 100         (percent; visitors who added to cart)
//   aov  = revenue / orders               (currency units; 0 without orders)
//   rpv  = revenue / visitors             (currency units); rps = rpv (deprecated alias)
//   lift (and liftByMetric values) = relative lift of the variant over the control, in percent
//   probabilities to win are 0..1
// The integer keys of liftByMetric and lifecycleByGoal are the ids below.

export const METRICS = [
  { id: 1, goal: 'conversion-rate', rate: 'cvr', label: 'Conversion rate', abbr: 'CVR' },
  { id: 2, goal: 'revenue-per-visitor', rate: 'rpv', label: 'Revenue per visitor', abbr: 'RPV' },
  { id: 3, goal: 'average-order-value', rate: 'aov', label: 'Average order value', abbr: 'AOV' },
  { id: 4, goal: 'add-to-cart-rate', rate: 'acr', label: 'Add-to-cart rate', abbr: 'ACR' },
  { id: 5, goal: 'click-through-rate', rate: 'ctr', label: 'Click-through rate', abbr: 'CTR' },
] as const;

export type Metric = (typeof METRICS)[number];
export type Goal = Metric['goal'];
export const GOALS: readonly Goal[] = METRICS.map((metric) => metric.goal);

/** The metric with this id (a key of liftByMetric or lifecycleByGoal), or null for one this version does not know. */
export function metricById(id: string | number): Metric | null {
  return METRICS.find((metric) => String(metric.id) === String(id)) ?? null;
}

/** The metric a test's goal names, or null for a goal this version does not know. */
export function metricOfGoal(goal: string): Metric | null {
  return METRICS.find((metric) => metric.goal === goal) ?? null;
}

/** Relative lift of the variant over the control in percent, or null when the control is zero. */
export function relativeLift(control: number, variant: number): number | null {
  return control === 0 ? null : ((variant - control) / control) * 100;
}
