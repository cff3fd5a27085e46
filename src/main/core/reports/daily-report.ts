// The `daily` report: one row per test × date × side, read from the raw results without a schema parse
// (a year of days is 730 side records per test); the writers take its numbers as the text they were
// cached as, and its percents with the point moved (dailyTextRows, dailyCsvBlocks), so an export never
// converts a number to a double and back.
import type { PackedResultsRow } from '../db/cache/report-rows';
import { unpackJsonAsync } from '../db/values';
import { csvCell, csvTextRows, NumberText, type CsvValue } from './csv';
import { CONTROL_AT, DAILY_FIGURES, VARIANT_AT, dailyMatches, type DayMatch } from './results-text';
import { BATCH_WITH_RESULTS, scopedRows, scopedTests } from './source';
import {
  NUMBER_KINDS,
  text,
  type Column,
  type CsvBlock,
  type ReportContext,
  type ReportDefinition,
} from './types';
import { PERCENT_FIGURES, fractionCell, fractionText, num, parseJson } from './values';

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

/** Whether each of DAILY_FIGURES is a percent, written as its fraction. */
const PERCENT = DAILY_FIGURES.map((figure) => PERCENT_FIGURES.has(figure));

/** A parsed record's days in date order, each side that is there (a day or side missing has no row). */
function* parsedSides(
  resultsJson: string,
): Generator<{ date: string; side: (typeof SIDES)[number]; stats: object }> {
  const daily = field(parseJson(resultsJson), 'daily');
  if (typeof daily !== 'object' || daily === null) return;
  const dates = Object.keys(daily)
    .filter((key) => ISO_DATE.test(key))
    .sort();
  for (const date of dates) {
    const performance = field(field(daily, date), 'performance');
    for (const side of SIDES) {
      const stats = field(performance, side);
      if (typeof stats === 'object' && stats !== null) yield { date, side, stats };
    }
  }
}

/** A parsed side's figure cells: numbers as they are, percents as fraction cells. */
function parsedCells(stats: object): CsvValue[] {
  return DAILY_FIGURES.map((figure, i) =>
    PERCENT[i] ? fractionCell(num(stats, figure)) : num(stats, figure),
  );
}

/** Dates in order; a day missing from a sparse map has no row; a side missing from a day has no row. */
export function* dailyRows(ctx: ReportContext): Generator<CsvValue[]> {
  for (const row of scopedTests(ctx, true)) {
    if (row.resultsJson === null) continue;
    const testId = testIdOf(row.testJson);
    if (testId === null) continue;
    for (const { date, side, stats } of parsedSides(row.resultsJson)) {
      yield [row.storeName, row.storeId, testId, date, side, ...parsedCells(stats)];
    }
  }
}

/**
 * A matched figure's cell text: a number as its text, a percent as its fraction's (fractionText: the
 * API's digits, the point moved, as fractionCell writes a parsed one), 'null' as an empty cell.
 */
function figureText(text: string | undefined, percent: boolean | undefined): string | null {
  if (text === undefined || text === 'null') return null;
  return percent ? fractionText(text) : text;
}

/** A cell as text: a number as String(n) (the text JSON.stringify cached it as), a fraction cell's own. */
function cellText(value: CsvValue): string | null {
  if (value === null) return null;
  return value instanceof NumberText ? value.text : String(value);
}

/** Where each figure is in a day's match, in DAILY_FIGURES' order, for each side. */
const SIDE_AT = {
  control: DAILY_FIGURES.map((figure) => CONTROL_AT[figure]),
  variant: DAILY_FIGURES.map((figure) => VARIANT_AT[figure]),
} as const;

type DailyRecord = {
  storeName: string;
  storeId: string;
  testId: string;
  /** The days as matched, or null for a record not laid out as the schema lays it out. */
  days: DayMatch[] | null;
  text: string;
};

type PackedRow = PackedResultsRow;

/** Each test in scope with its packed results (null for a test without any), in the cache's order. */
function packedRows(ctx: ReportContext): Generator<PackedRow> {
  return scopedRows(ctx, { shape: 'packedResults', batch: BATCH_WITH_RESULTS });
}

function recordOf({ storeName, storeId, id }: PackedRow, text: string): DailyRecord {
  return { storeName, storeId, testId: id, days: dailyMatches(text), text };
}

/**
 * Records decompressed ahead of the one being written, on libuv's threads: decompressing was a third
 * of the CSV export's time, and it runs beside the writing this way. Two keep that thread busy (four
 * and eight were no faster, and held more memory).
 */
const UNPACK_AHEAD = 2;

/**
 * Each test's daily series as read from the cache: its days matched in the cached text
 * (results-text.ts), each record decompressed while the ones before it are written (UNPACK_AHEAD).
 * A year of days of a thousand tests is 730,000 rows: parsing the records whole to write their numbers
 * back as text was most of the export's time.
 */
async function* dailyRecordsAhead(ctx: ReportContext): AsyncGenerator<DailyRecord> {
  // Each settles to its text or its error at once, so a failure waiting its turn (or left behind by
  // a reader that stopped) is never an unhandled rejection; it is thrown when its record's turn comes.
  const ahead: { row: PackedRow; text: Promise<{ text: string } | { error: unknown }> }[] = [];
  const next = async (): Promise<DailyRecord | null> => {
    const first = ahead.shift();
    if (!first) return null;
    const unpacked = await first.text;
    if ('error' in unpacked) throw unpacked.error;
    return recordOf(first.row, unpacked.text);
  };
  for (const row of packedRows(ctx)) {
    if (row.packed === null) continue;
    const text = unpackJsonAsync(row.packed).then(
      (text) => ({ text }),
      (error: unknown) => ({ error }),
    );
    ahead.push({ row, text });
    if (ahead.length < UNPACK_AHEAD) continue;
    const record = await next();
    if (record) yield record;
  }
  for (let record = await next(); record; record = await next()) yield record;
}

/** The text rows of a record not laid out as the schema lays it out: parsed whole. */
function* parsedTextRows({
  storeName,
  storeId,
  testId,
  text,
}: DailyRecord): Generator<(string | null)[]> {
  for (const { date, side, stats } of parsedSides(text))
    yield [storeName, storeId, testId, date, side, ...parsedCells(stats).map(cellText)];
}

/**
 * Rows handed over at a time: enough that a step of the reader per row is gone, few enough that they
 * die young. A year of a test's rows at once, held while the .xlsx writer made their XML, lived long
 * enough to be promoted: peaks of 276–289 MiB against 271–278 in blocks of 32 (four runs each).
 */
const ROWS_A_BLOCK = 32;

/**
 * The same rows as dailyRows, each number as its text and each percent as its fraction's text,
 * ROWS_A_BLOCK rows at a time (a block holds one test's rows only; a record read the general way, a
 * rare one, is one block).
 */
export async function* dailyTextRows(ctx: ReportContext): AsyncGenerator<(string | null)[][]> {
  for await (const record of dailyRecordsAhead(ctx)) {
    const { storeName, storeId, testId, days } = record;
    if (days === null) {
      yield [...parsedTextRows(record)];
      continue;
    }
    let rows: (string | null)[][] = [];
    for (const day of days) {
      for (const side of SIDES) {
        const at = SIDE_AT[side];
        rows.push([
          storeName,
          storeId,
          testId,
          day[1] ?? null,
          side,
          ...at.map((i, k) => figureText(day[i], PERCENT[k])),
        ]);
      }
      if (rows.length >= ROWS_A_BLOCK) {
        yield rows;
        rows = [];
      }
    }
    if (rows.length > 0) yield rows;
  }
}

const NUMBER_COLUMNS = DAILY_COLUMNS.map((column) => NUMBER_KINDS.has(column.kind));
const SIDE_CELLS = { control: csvCell('control'), variant: csvCell('variant') } as const;

/**
 * dailyTextRows as CSV records, each test's lines built straight from the matched text into one block:
 * the very lines csvTextRows makes of those rows, without an array of cells a row or a step a line.
 */
export async function* dailyCsvBlocks(ctx: ReportContext): AsyncGenerator<CsvBlock> {
  const rowLine = csvTextRows(NUMBER_COLUMNS);
  for await (const record of dailyRecordsAhead(ctx)) {
    const { storeName, storeId, testId, days } = record;
    let text = '';
    let rows = 0;
    if (days === null) {
      for (const row of parsedTextRows(record)) {
        text += rowLine(row);
        rows += 1;
      }
      yield { text, rows };
      continue;
    }
    const prefix = `${csvCell(storeName)},${csvCell(storeId)},${csvCell(testId)},`;
    for (const day of days) {
      const start = `${prefix}${csvCell(day[1] ?? null)},`;
      for (const side of SIDES) {
        let line = start + SIDE_CELLS[side];
        const at = SIDE_AT[side];
        for (let k = 0; k < at.length; k++)
          line += `,${figureText(day[at[k] ?? 0], PERCENT[k]) ?? ''}`;
        text += `${line}\r\n`;
      }
    }
    yield { text, rows: days.length * SIDES.length };
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
  csvBlocks: dailyCsvBlocks,
};
