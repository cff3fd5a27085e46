// The `daily` report: one row per test × date × side, read from the raw results without a schema parse
// (a year of days is 730 side records per test); the writers take its numbers as the text they were
// cached as (dailyTextRows), so an export never converts them back and forth.
import { unpackJson } from '../db/values';
import type { CsvValue } from './csv';
import {
  CONTROL_AT,
  VARIANT_AT,
  dailyMatches,
  type DayMatch,
  type FigureIndex,
} from './results-text';
import { BATCH_WITH_RESULTS, scopedRows, scopedTests } from './source';
import { text, type Column, type ReportContext, type ReportDefinition } from './types';
import { fraction, fractionText, num, parseJson } from './values';

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

/** One test's rows from its parsed results: dates in order, a day or side missing has no row. */
function* parsedDailyRows(
  storeName: string,
  storeId: string,
  testId: string,
  resultsJson: string,
): Generator<CsvValue[]> {
  const daily = field(parseJson(resultsJson), 'daily');
  if (typeof daily !== 'object' || daily === null) return;
  const dates = Object.keys(daily)
    .filter((key) => ISO_DATE.test(key))
    .sort();
  for (const date of dates) {
    const performance = field(field(daily, date), 'performance');
    for (const side of SIDES) {
      const stats = field(performance, side);
      if (typeof stats !== 'object' || stats === null) continue;
      yield [
        storeName,
        storeId,
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

/** Dates in order; a day missing from a sparse map has no row; a side missing from a day has no row. */
export function* dailyRows(ctx: ReportContext): Generator<CsvValue[]> {
  for (const row of scopedTests(ctx, true)) {
    if (row.resultsJson === null) continue;
    const testId = testIdOf(row.testJson);
    if (testId === null) continue;
    yield* parsedDailyRows(row.storeName, row.storeId, testId, row.resultsJson);
  }
}

/** A figure as matched: 'null' is an empty cell. */
function figure(day: DayMatch, at: number): string | null {
  const text = day[at];
  return text === undefined || text === 'null' ? null : text;
}

/** A percent figure as its fraction's text, as fraction() gives it. */
function percent(day: DayMatch, at: number): string | null {
  const text = day[at];
  return text === undefined || text === 'null' ? null : fractionText(text);
}

/** One side's row of a matched day; `at` is CONTROL_AT or VARIANT_AT. */
function sideRow(
  prefix: readonly [string, string, string],
  side: 'control' | 'variant',
  day: DayMatch,
  at: FigureIndex,
): (string | null)[] {
  return [
    prefix[0],
    prefix[1],
    prefix[2],
    day[1] ?? null,
    side,
    figure(day, at.visitors),
    figure(day, at.visits),
    figure(day, at.clicks),
    figure(day, at.carts),
    figure(day, at.conversions),
    figure(day, at.orders),
    figure(day, at.revenue),
    percent(day, at.cvr),
    percent(day, at.acr),
    percent(day, at.ctr),
    figure(day, at.aov),
    figure(day, at.rpv),
  ];
}

/**
 * The same rows as dailyRows, each number as its text, read from the cached record as written
 * (results-text.ts): a year of days of a thousand tests is 730,000 rows, and parsing the records whole
 * to write their numbers back as text was most of the export's time. A record not laid out as the
 * schema lays it out is parsed whole, as dailyRows does.
 */
export function* dailyTextRows(ctx: ReportContext): Generator<(string | null)[]> {
  const rows = scopedRows<{ seq: number; storeId: string; id: string; packed: Uint8Array | null }>(
    ctx,
    {
      columns: 't.store_id AS storeId, t.id, rr.raw_packed AS packed',
      joins: 'LEFT JOIN results_raw rr ON rr.store_id = t.store_id AND rr.test_id = t.id',
      batch: BATCH_WITH_RESULTS,
    },
  );
  for (const { storeName, storeId, id, packed } of rows) {
    if (packed === null) continue;
    const text = unpackJson(packed);
    const days = dailyMatches(text);
    if (days === null) {
      for (const row of parsedDailyRows(storeName, storeId, id, text))
        yield row.map((value) => (value === null ? null : String(value)));
      continue;
    }
    const prefix = [storeName, storeId, id] as const;
    for (const day of days) {
      yield sideRow(prefix, 'control', day, CONTROL_AT);
      yield sideRow(prefix, 'variant', day, VARIANT_AT);
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
  textRows: dailyTextRows,
};
