// The metrics of a test's results: their integer ids, the goal each measures, their units, and every
// other meaning Splitbook INFERS about the results where the API description is silent.
//
// The API states field names and types only. Everything below is Splitbook's reading, kept in this one
// place so the UI can say "inferred" wherever it relies on it:
//   - Metric definitions (the simulator produces them so; another server may not):
//       cvr  = conversions / visitors      cnv = conversions / visits     ctr = clicks / visits
//       acr  = carts / visitors            aov = revenue / orders         rpv = revenue / visitors
//     Rates may come as a percent (3.4) or as a fraction (0.034): `rateScale` decides per value by
//     comparing it with the counts, and says "unknown" when neither fits.
//   - Money has no stated currency: it is "in the store's currency", never a symbol.
//   - The integer keys of liftByMetric and lifecycleByGoal are read as the ids in METRICS. This is
//     an inference: labels built from it carry `inferred: true`.
//   - The top-level `lift` has no stated metric: it is shown as "Lift (API)", never as a goal's lift.
//   - Lifts are relative lifts of the variant over the control, in percent; probabilities are 0..1.
//   - A test's `goal` string is matched by its letters only ("clickThroughRate" = "click-through-rate").

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

/** A spelling-free key: "clickThroughRate", "CLICK_THROUGH_RATE" and "click-through-rate" all give "clickthroughrate". */
export function spellingKey(value: string): string {
  return value.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The metric with this id (a key of liftByMetric or lifecycleByGoal), or null for one this version does not know. Inferred. */
export function metricById(id: string | number): Metric | null {
  return METRICS.find((metric) => String(metric.id) === String(id)) ?? null;
}

/** The metric a test's goal names, whatever its spelling, or null for a goal this version does not know. */
export function metricOfGoal(goal: string): Metric | null {
  const key = spellingKey(goal);
  return (
    METRICS.find(
      (metric) =>
        spellingKey(metric.goal) === key || metric.rate === key || spellingKey(metric.abbr) === key,
    ) ?? null
  );
}

/** Whether a results key (an integer id) is read as the test's goal. Inferred from METRICS. */
export function isGoalId(id: string | number, goal: string): boolean {
  const metric = metricById(id);
  return metric !== null && metric === metricOfGoal(goal);
}

/** Relative lift of the variant over the control in percent, or null when the control is zero. */
export function relativeLift(control: number, variant: number): number | null {
  return control === 0 ? null : ((variant - control) / control) * 100;
}

export type RateScale = 'percent' | 'fraction' | 'unknown';

/** The counts each rate is read as a ratio of (inferred; see the head of this file). */
export const RATE_PARTS = {
  cvr: ['conversions', 'visitors'],
  cnv: ['conversions', 'visits'],
  ctr: ['clicks', 'visits'],
  acr: ['carts', 'visitors'],
} as const;
export type RateKey = keyof typeof RATE_PARTS;

/**
 * Whether a rate the API sent is a percent or a fraction, judged against its counts: the ratio
 * itself means a fraction, a hundred times it a percent. With no counts to judge by (or neither
 * fits within 2%), the scale is unknown and the value is shown as sent.
 */
export function rateScale(value: number, numerator: number, denominator: number): RateScale {
  if (denominator <= 0) return 'unknown';
  const ratio = numerator / denominator;
  const near = (a: number, b: number) => Math.abs(a - b) <= Math.max(Math.abs(b) * 0.02, 1e-9);
  // Zero is zero on either scale.
  if (ratio === 0) return value === 0 ? 'percent' : 'unknown';
  if (near(value, ratio * 100)) return 'percent';
  if (near(value, ratio)) return 'fraction';
  return 'unknown';
}

/** A rate in percent when its scale is known, else null (show the raw value instead). */
export function rateAsPercent(value: number, scale: RateScale): number | null {
  if (scale === 'percent') return value;
  if (scale === 'fraction') return value * 100;
  return null;
}

/** How money is labelled: the API states no currency, so no symbol is ever invented. */
export const MONEY_UNIT = "in the store's currency";

/**
 * Splitbook's one definition of each goal rate, named with what it counts: every rate is per visitor
 * (each visitor one trial), and the API's own rate fields (ctr per visit, say) are shown only as "as
 * sent". The call, the list, the Results tab and every report use these.
 */
export const RATE_MEANING: Record<Metric['rate'], string> = {
  cvr: 'conversions per visitor',
  rpv: 'revenue per visitor',
  aov: 'revenue per order',
  acr: 'carts per visitor',
  ctr: 'clicks per visitor',
};

/** "Click-through rate (clicks per visitor)"; revenue per visitor is its own meaning. */
export function rateName(rate: Metric['rate']): string {
  const label = METRICS.find((metric) => metric.rate === rate)?.label ?? rate;
  return rate === 'rpv' ? label : `${label} (${RATE_MEANING[rate]})`;
}
