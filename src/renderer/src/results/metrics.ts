// What the results' numbers mean and how they read: metric labels, units, goal ids, and lift verdicts.
//
// Metric ids, goals and units are defined once in src/shared/domain/metrics.ts.
import type { Lifecycle, SideStatistics } from '#shared/api/index';
import {
  isGoalId,
  METRICS,
  metricById,
  metricOfGoal,
  RATE_PARTS,
  rateAsPercent,
  rateName,
  rateScale,
  type RateKey,
} from '#shared/domain/metrics';
import { knownTierLabel, liftTone, sideOf, verdictOf } from '#shared/domain/verdict';
import { formatInt, formatNumber, formatPercent } from '../lib/format';

export type Unit = 'count' | 'percent' | 'money';

export type MetricRow = {
  key: 'visitors' | 'conversions' | 'cvr' | 'aov' | 'rpv' | 'ctr' | 'acr' | 'revenue';
  /** Row label of the full table. */
  label: string;
  /** Row label of the small multiples. */
  short: string;
  unit: Unit;
  /** Id of the metric in lifecycleByGoal, whose tier says whether a difference is significant. */
  goalId: number | null;
};

/** The id of the metric measured by a rate, for the lifecycle of that goal. */
function idOfRate(rate: string): number | null {
  return METRICS.find((metric) => metric.rate === rate)?.id ?? null;
}

/** Rows of the metrics table, in reading order. Deprecated `rps` is never shown (rpv is). */
export const TABLE_METRICS: readonly MetricRow[] = [
  { key: 'visitors', label: 'Visitors', short: 'Visitors', unit: 'count', goalId: null },
  { key: 'conversions', label: 'Conversions', short: 'Conv.', unit: 'count', goalId: null },
  { key: 'cvr', label: rateName('cvr'), short: 'CVR', unit: 'percent', goalId: idOfRate('cvr') },
  { key: 'aov', label: rateName('aov'), short: 'AOV', unit: 'money', goalId: idOfRate('aov') },
  { key: 'rpv', label: rateName('rpv'), short: 'RPV', unit: 'money', goalId: idOfRate('rpv') },
  { key: 'ctr', label: rateName('ctr'), short: 'CTR', unit: 'percent', goalId: idOfRate('ctr') },
  { key: 'acr', label: rateName('acr'), short: 'ACR', unit: 'percent', goalId: idOfRate('acr') },
  { key: 'revenue', label: 'Revenue', short: 'Rev.', unit: 'money', goalId: null },
];

/** "Conversion rate" for a results key this version reads as a metric (inferred), else "Goal 7". */
export function goalLabel(id: string | number): string {
  return metricById(id)?.label ?? `Goal ${id}`;
}

/** Whether a results key is read as the test's own goal (inferred; the spelling of the goal does not matter). */
export function isTestGoal(id: string | number, goal: string): boolean {
  return isGoalId(id, goal);
}

/** A known goal's name ("Click-through rate" for "clickThroughRate"); an unknown goal as sent. */
export function goalName(goal: string): string {
  return metricOfGoal(goal)?.label ?? goal;
}

/** Whether a goal string is one this version knows (an unknown one is shown raw, neutrally). */
export function isKnownGoal(goal: string): boolean {
  return metricOfGoal(goal) !== null;
}

/** A goal's abbreviation ("CVR"), or its raw text when it is unknown. */
export function goalAbbr(goal: string): string {
  return metricOfGoal(goal)?.abbr ?? goal;
}

/** A figure in its unit; money carries no symbol (the API states no currency). */
export function formatValue(value: number, unit: Unit): string {
  if (unit === 'count') return formatInt(value);
  if (unit === 'percent') return formatPercent(value, 2);
  return formatNumber(value, 2);
}

/**
 * The value of a metric on one side: a count as sent, a rate Splitbook's one way (per visitor, from
 * the counts; average order value per order), the same figure the call and the list use. Null when its
 * denominator is zero.
 */
export function metricValue(stats: SideStatistics, key: MetricRow['key']): number | null {
  const per = (numerator: number, denominator: number) => (denominator > 0 ? numerator / denominator : null);
  switch (key) {
    case 'cvr':
      return per(stats.conversions, stats.visitors);
    case 'ctr':
      return per(stats.clicks, stats.visitors);
    case 'acr':
      return per(stats.carts, stats.visitors);
    case 'rpv':
      return per(stats.revenue, stats.visitors);
    case 'aov':
      return per(stats.revenue, stats.orders);
    default:
      return stats[key];
  }
}

/**
 * How a side's metric reads: Splitbook's figure (metricValue), and for a rate the API's own field as
 * sent beside it (its `ctr` is per visit at the simulator's stores, say), which the note says.
 */
export function metricText(
  stats: SideStatistics,
  metric: MetricRow,
): { text: string; note: string | null } {
  const value = metricValue(stats, metric.key);
  if (value === null) return { text: '–', note: null };
  const text = metric.unit === 'percent' ? formatPercent(value * 100, 2) : formatValue(value, metric.unit);
  if (metric.key === 'visitors' || metric.key === 'conversions' || metric.key === 'revenue') return { text, note: null };
  return { text, note: `As the API sends it: ${apiText(stats, metric)} (its own ${metric.key} field; the API does not define it).` };
}

/** The API's own field of a rate, read with its scale judged from the counts (inferred). */
function apiText(stats: SideStatistics, metric: MetricRow): string {
  const value = stats[metric.key];
  if (metric.unit !== 'percent' || !(metric.key in RATE_PARTS)) return formatValue(value, metric.unit);
  const [num, den] = RATE_PARTS[metric.key as RateKey];
  const asPercent = rateAsPercent(value, rateScale(value, stats[num], stats[den]));
  return asPercent === null ? formatNumber(value, 4) : `${formatPercent(asPercent, 2)} (${num} per ${den.replace(/s$/, '')})`;
}

export { relativeLift } from '#shared/domain/metrics';

export type Tone = 'positive' | 'negative' | 'inconclusive';

/** The tone of a lift the API sent beside its own lifecycle: coloured only for a decided winner, in its direction. */
export function verdictTone(
  lift: number,
  lifecycle: Pick<Lifecycle, 'tier' | 'leadingVariant'> | null,
): Tone {
  return lifecycle === null ? 'inconclusive' : liftTone(lift, verdictOf(lifecycle));
}

/** Words for a lift's direction that pass no judgement (Splitbook's own figures are never coloured). */
export function directionWord(lift: number): string {
  return lift > 0 ? 'higher' : lift < 0 ? 'lower' : 'same';
}

export const TONE_WORD: Record<Tone, string> = {
  positive: 'better',
  negative: 'worse',
  inconclusive: 'inconclusive',
};

/** A tier's label, or null when this version does not know it (render the raw text neutrally). */
export function tierLabel(tier: string): string | null {
  return knownTierLabel(tier);
}

/** "variant" -> "Variant"; null -> "No leader yet"; an unknown side -> null (render raw). */
export function sideLabel(side: string | null): string | null {
  const known = sideOf(side);
  if (known === null) return 'No leader yet';
  if (known === 'control') return 'Control';
  if (known === 'variant') return 'Variant';
  return null;
}
