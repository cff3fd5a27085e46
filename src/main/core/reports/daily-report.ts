// The `daily` report: one row per test × date × side, read from the raw results without a full schema
// parse (a year of days is 730 side records per test), each field checked as it is read.
import type { CsvValue } from './csv';
import { scopedTests } from './source';
import { text, type Column, type ReportContext, type ReportDefinition } from './types';
import { fraction, num, parseJson } from './values';

const COUNTS = ['visitors', 'visits', 'clicks', 'carts', 'conversions', 'orders'] as const;
const SIDES = ['control', 'variant'] as const;
/** The daily map's keys are not specified by the API; Splitbook reads those that are ISO dates. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export const DAILY_COLUMNS: readonly Column[] = [
  text('store', 'store name', 'cache'),
  text('store_id', "Splitbook's id of the store", 'cache'),
  text('test_id', 'UUID'),
  {
    name: 'date',
    kind: 'date',
    unit: 'ISO 8601 date (the key of the API’s daily map)',
    source: 'API',
  },
  text('side', 'control or variant'),
  ...COUNTS.map((name): Column => ({
    name,
    kind: 'integer',
    unit: 'count that day',
    source: 'API',
  })),
  { name: 'revenue', kind: 'money', unit: 'store currency', source: 'API' },
  {
    name: 'cvr',
    kind: 'fraction',
    unit: 'fraction (API percent ÷ 100): conversions ÷ visitors',
    source: 'API',
  },
  {
    name: 'acr',
    kind: 'fraction',
    unit: 'fraction (API percent ÷ 100): carts ÷ visitors',
    source: 'API',
  },
  {
    name: 'ctr',
    kind: 'fraction',
    unit: 'fraction (API percent ÷ 100): clicks ÷ visits',
    source: 'API',
  },
  { name: 'aov', kind: 'money', unit: 'store currency per order', source: 'API' },
  { name: 'rpv', kind: 'money', unit: 'store currency per visitor', source: 'API' },
];

function field(record: unknown, key: string): unknown {
  return typeof record === 'object' && record !== null ? Reflect.get(record, key) : undefined;
}

function testIdOf(testJson: string): string | null {
  const id = field(parseJson(testJson), 'id');
  return typeof id === 'string' ? id : null;
}

/** Dates in order; a day missing from a sparse map has no row; a side missing from a day has no row. */
export function* dailyRows(ctx: ReportContext): Generator<CsvValue[]> {
  for (const row of scopedTests(ctx, true)) {
    if (row.resultsJson === null) continue;
    const daily = field(parseJson(row.resultsJson), 'daily');
    if (typeof daily !== 'object' || daily === null) continue;
    const testId = testIdOf(row.testJson);
    if (testId === null) continue;
    const dates = Object.keys(daily)
      .filter((key) => ISO_DATE.test(key))
      .sort();
    for (const date of dates) {
      const performance = field(field(daily, date), 'performance');
      for (const side of SIDES) {
        const stats = field(performance, side);
        if (typeof stats !== 'object' || stats === null) continue;
        yield [
          row.storeName,
          row.storeId,
          testId,
          date,
          side,
          num(stats, 'visitors'),
          num(stats, 'visits'),
          num(stats, 'clicks'),
          num(stats, 'carts'),
          num(stats, 'conversions'),
          num(stats, 'orders'),
          num(stats, 'revenue'),
          fraction(num(stats, 'cvr')),
          fraction(num(stats, 'acr')),
          fraction(num(stats, 'ctr')),
          num(stats, 'aov'),
          num(stats, 'rpv'),
        ];
      }
    }
  }
}

export const dailyReport: ReportDefinition = {
  name: 'daily',
  description:
    'The daily series of every test, one row per date and side, to chart in a spreadsheet.',
  perTest: true,
  columns: DAILY_COLUMNS,
  rows: dailyRows,
};
