// What the results' numbers mean and how they read: metric labels, units, goal ids, and lift verdicts.
//
// Metric ids, goals and units are defined once in src/shared/domain/metrics.ts.
import type { Lifecycle, SideStatistics } from '../../../shared/api';
import { METRICS, metricById, metricOfGoal } from '../../../shared/domain/metrics';
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
  {
    key: 'cvr',
    label: 'Conversion rate (CVR)',
    short: 'CVR',
    unit: 'percent',
    goalId: idOfRate('cvr'),
  },
  {
    key: 'aov',
    label: 'Average order value (AOV)',
    short: 'AOV',
    unit: 'money',
    goalId: idOfRate('aov'),
  },
  {
    key: 'rpv',
    label: 'Revenue per visitor (RPV)',
    short: 'RPV',
    unit: 'money',
    goalId: idOfRate('rpv'),
  },
  {
    key: 'ctr',
    label: 'Click-through rate (CTR)',
    short: 'CTR',
    unit: 'percent',
    goalId: idOfRate('ctr'),
  },
  {
    key: 'acr',
    label: 'Add-to-cart rate (ACR)',
    short: 'ACR',
    unit: 'percent',
    goalId: idOfRate('acr'),
  },
  { key: 'revenue', label: 'Revenue', short: 'Revenue', unit: 'money', goalId: null },
];

/** "Conversion rate"; an id this version does not know is shown as "Goal 7". */
export function goalLabel(id: string | number): string {
  return metricById(id)?.label ?? `Goal ${id}`;
}

/** Whether a results key is the test's own goal (e.g. key "1" for goal "conversion-rate"). */
export function isTestGoal(id: string | number, goal: string): boolean {
  return metricById(id)?.goal === goal;
}

/** A human name for a goal string ("revenue-per-visitor" -> "Revenue per visitor"). */
export function goalName(goal: string): string {
  const known = metricOfGoal(goal);
  if (known) return known.label;
  const words = goal.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A goal's abbreviation ("CVR"), or its name when it has none. */
export function goalAbbr(goal: string): string {
  return metricOfGoal(goal)?.abbr ?? goalName(goal);
}

export function formatValue(value: number, unit: Unit): string {
  if (unit === 'count') return formatInt(value);
  if (unit === 'percent') return formatPercent(value, 2);
  return formatNumber(value, 2);
}

export function metricValue(stats: SideStatistics, key: MetricRow['key']): number {
  return stats[key];
}

export { relativeLift } from '../../../shared/domain/metrics';

export type Tone = 'positive' | 'negative' | 'inconclusive';

/** A lift's tone: green or red only when the API's lifecycle calls the result significant. */
export function verdictTone(lift: number, lifecycle: Pick<Lifecycle, 'tier'> | null): Tone {
  if (lifecycle?.tier !== 'significant' || lift === 0) return 'inconclusive';
  return lift > 0 ? 'positive' : 'negative';
}

export const TONE_WORD: Record<Tone, string> = {
  positive: 'better',
  negative: 'worse',
  inconclusive: 'inconclusive',
};

export const TIER_LABEL: Record<string, string> = {
  learning: 'Learning',
  emerging: 'Emerging',
  significant: 'Significant',
  inconclusive: 'Inconclusive',
};

export function tierLabel(tier: string): string {
  return TIER_LABEL[tier] ?? tier;
}

/** "variant" -> "Variant"; null -> "No leader yet". */
export function sideLabel(side: string | null): string {
  if (side === null) return 'No leader yet';
  if (side === 'control') return 'Control';
  if (side === 'variant') return 'Variant';
  return side;
}
