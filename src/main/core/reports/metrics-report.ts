// The `metrics` report: one row per test × segment × metric, with Splitbook's statistics on the binary rates.
import { Test, TestResults, type SideStatistics } from '#shared/api/index';
import { SEGMENTS } from '#shared/api/results';
import { analysePerMetric, analyseSegments, type PerMetric } from '#shared/domain/statistics/index';
import type { CsvValue } from './csv';
import { scopedTests } from './source';
import { text, type Column, type ReportContext, type ReportDefinition } from './types';
import { PERCENT_FIGURES, fraction, fractionCell, parseJson, relative } from './values';

export const METRIC_NAMES = [
  'visitors',
  'conversions',
  'orders',
  'revenue',
  'cvr',
  'acr',
  'ctr',
  'aov',
  'rpv',
] as const;
type MetricName = (typeof METRIC_NAMES)[number];
const RATE_COUNTS = { cvr: 'conversions', acr: 'carts', ctr: 'clicks' } as const;

export const METRICS_COLUMNS: readonly Column[] = [
  text('store', 'store name', 'cache'),
  text('store_id', "Splitbook's id of the store", 'cache'),
  text('test_id', 'UUID'),
  text('title', 'text'),
  text('segment', 'all, mobile, desktop, new or returning'),
  text('metric', 'visitors, conversions, orders, revenue, cvr, acr, ctr, aov or rpv'),
  {
    name: 'control_value',
    kind: 'number',
    unit: 'count (visitors, conversions, orders), store currency (revenue, aov, rpv), fraction (cvr, acr, ctr: API percent ÷ 100; ctr is per visit)',
    source: 'API',
  },
  { name: 'variant_value', kind: 'number', unit: 'as control_value', source: 'API' },
  {
    name: 'relative_lift',
    kind: 'fraction',
    unit: 'fraction, variant_value ÷ control_value − 1; empty when the control is 0',
    source: 'Splitbook',
  },
  {
    name: 'control_count',
    kind: 'integer',
    unit: 'numerator of a rate: conversions (cvr), carts (acr), clicks (ctr)',
    source: 'API',
  },
  { name: 'variant_count', kind: 'integer', unit: 'as control_count', source: 'API' },
  { name: 'control_visitors', kind: 'integer', unit: 'visitors (rate rows only)', source: 'API' },
  { name: 'variant_visitors', kind: 'integer', unit: 'visitors (rate rows only)', source: 'API' },
  {
    name: 'p_win',
    kind: 'fraction',
    unit: '0..1, P(variant rate > control rate), each visitor one trial (cvr, acr, ctr rows)',
    source: 'Splitbook',
  },
  {
    name: 'lift_ci_low',
    kind: 'fraction',
    unit: 'fraction, lower end of the 95% credible interval of the lift',
    source: 'Splitbook',
  },
  {
    name: 'lift_ci_high',
    kind: 'fraction',
    unit: 'fraction, upper end of that interval',
    source: 'Splitbook',
  },
  // New columns go at the end: the ones above keep their place and meaning.
  text(
    'unit',
    "the unit of control_value and variant_value on this row: count, currency (the store's, unconverted) or fraction",
    'Splitbook',
  ),
];

/** The unit of a metric's value cells: control_value mixes counts, money and fractions across rows. */
export const METRIC_UNITS: Readonly<Record<MetricName, 'count' | 'currency' | 'fraction'>> = {
  visitors: 'count',
  conversions: 'count',
  orders: 'count',
  revenue: 'currency',
  cvr: 'fraction',
  acr: 'fraction',
  ctr: 'fraction',
  aov: 'currency',
  rpv: 'currency',
};

/** A side's figure as a number: percents as fractions (what the relative lift is taken of). */
function value(side: SideStatistics | null, metric: MetricName): number | null {
  if (!side) return null;
  return PERCENT_FIGURES.has(metric) ? fraction(side[metric]) : side[metric];
}

/** A side's figure as its cell: percents as fraction cells (the API's digits, the point moved). */
function valueCell(side: SideStatistics | null, metric: MetricName): CsvValue {
  if (!side) return null;
  return PERCENT_FIGURES.has(metric) ? fractionCell(side[metric]) : side[metric];
}

function* segmentRows(
  prefix: CsvValue[],
  segment: string,
  control: SideStatistics | null,
  variant: SideStatistics | null,
  stats: PerMetric | null,
): Generator<CsvValue[]> {
  for (const metric of METRIC_NAMES) {
    const row: CsvValue[] = [
      ...prefix,
      segment,
      metric,
      valueCell(control, metric),
      valueCell(variant, metric),
      relative(value(control, metric), value(variant, metric)),
    ];
    if (metric === 'cvr' || metric === 'acr' || metric === 'ctr') {
      const count = RATE_COUNTS[metric];
      const analysis = stats?.[metric] ?? null;
      row.push(
        control?.[count] ?? null,
        variant?.[count] ?? null,
        control?.visitors ?? null,
        variant?.visitors ?? null,
        analysis?.pWin ?? null,
        analysis?.liftCiLow ?? null,
        analysis?.liftCiHigh ?? null,
      );
    } else {
      row.push(null, null, null, null, null, null, null);
    }
    row.push(METRIC_UNITS[metric]);
    yield row;
  }
}

function safely<T>(run: () => T): T | null {
  try {
    return run();
  } catch {
    return null;
  }
}

/** Tests without cached results have no rows; a segment neither side has is left out. */
export function* metricsRows(ctx: ReportContext): Generator<CsvValue[]> {
  for (const row of scopedTests(ctx, true)) {
    if (row.resultsJson === null) continue;
    const test = Test.safeParse(parseJson(row.testJson));
    const results = TestResults.safeParse(parseJson(row.resultsJson));
    if (!test.success || !results.success) continue;
    const r = results.data;
    const prefix: CsvValue[] = [row.storeName, row.storeId, test.data.id, test.data.title];
    yield* segmentRows(
      prefix,
      'all',
      r.control,
      r.variant,
      safely(() => analysePerMetric(r.control, r.variant)),
    );
    const segments = safely(() => analyseSegments(r));
    for (const segment of SEGMENTS) {
      const control = r.control[segment];
      const variant = r.variant[segment];
      if (!control && !variant) continue;
      yield* segmentRows(prefix, segment, control, variant, segments?.[segment] ?? null);
    }
  }
}

export const metricsReport: ReportDefinition = {
  name: 'metrics',
  description:
    'Every metric of every test by segment, control beside variant, with Splitbook’s P(win) on the rates.',
  perTest: true,
  columns: METRICS_COLUMNS,
  rows: metricsRows,
};
