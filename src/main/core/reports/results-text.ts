// Reads a cached results record's JSON text without parsing all of it: the totals before its daily
// series, and the daily series' figures as the number texts they were written with.
//
// Why this is exact: the text is JSON.stringify's output of a record validated when it was synced
// (db/results.ts, packJson): no whitespace, each key once, every number written as String(n). So a
// number's text in it IS the text a CSV cell of that number holds, and a record laid out as the schema
// lays it out can be read by position. Anything else (an unknown field among the daily figures, a
// segment inside a day, a day key that is not a date) is not matched, and the caller reads that record
// the general way, with JSON.parse.
import { SEGMENTS, SIDE_METRICS, type SideStatistics, TestResults } from '#shared/api/results';
import { dayNumberOf } from '#shared/domain/statistics/daily';
import { unpackJsonUntil } from '../db/values';
import type { RevenueDay, RevenueSide } from '#shared/domain/statistics/revenue';

/** What the reports read of a side's totals: counts for the binary analysis, rates for the goal. */
export const HEAD_FIGURES = [
  'visitors',
  'conversions',
  'carts',
  'clicks',
  'cvr',
  'acr',
  'ctr',
  'rpv',
  'aov',
] as const;
export type HeadSide = Pick<SideStatistics, (typeof HEAD_FIGURES)[number]>;

/** What the reports read of a record before its daily series: the API's totals and figures. */
export type ResultsHead = Pick<TestResults, 'lift' | 'variantProbabilityWin'> & {
  control: HeadSide;
  variant: HeadSide;
};

const DAILY_KEY = ',"daily":';

/** JSON values as the record writes them (valid JSON, no whitespace). */
const STRING = '"(?:[^"\\\\]|\\\\.)*"';
const NUMBER = '[-+.\\deE]+';
const SCALAR = `(?:${STRING}|${NUMBER}|true|false|null)`;

/** A side's metrics in SIDE_METRICS' order, HEAD_FIGURES captured (in the order they appear). */
function metricsPattern(capture: boolean): { source: string; captured: string[] } {
  const wanted = new Set<string>(HEAD_FIGURES);
  const captured: string[] = [];
  const members = SIDE_METRICS.map((metric) => {
    if (!capture || !wanted.has(metric)) return `"${metric}":${NUMBER}`;
    captured.push(metric);
    return `"${metric}":(${NUMBER})`;
  });
  return { source: members.join(','), captured };
}

const SEGMENT = `\\{${metricsPattern(false).source},${SEGMENTS.map((s) => `"${s}":null`).join(',')}\\}`;
const SIDE_TOTALS = metricsPattern(true);
const TOTALS = `\\{${SIDE_TOTALS.source},${SEGMENTS.map((s) => `"${s}":(?:null|${SEGMENT})`).join(',')}\\}`;
const LIFT_BY_METRIC = `\\{(?:${STRING}:\\{"value":${NUMBER}\\}(?:,${STRING}:\\{"value":${NUMBER}\\})*)?\\}`;
/** The members before `daily`, in the schema's order: the order the record is written in. */
const HEAD_KEYS = Object.keys(TestResults.shape).slice(
  0,
  Object.keys(TestResults.shape).indexOf('daily'),
);
const HEAD = new RegExp(
  `^\\{${HEAD_KEYS.map((key) => {
    if (key === 'lift' || key === 'variantProbabilityWin') return `"${key}":(${NUMBER})`;
    if (key === 'liftByMetric') return `"${key}":${LIFT_BY_METRIC}`;
    if (key === 'control' || key === 'variant') return `"${key}":${TOTALS}`;
    return `"${key}":${SCALAR}`;
  }).join(',')}${DAILY_KEY}`,
);

function headSide(match: RegExpExecArray, from: number): HeadSide {
  const side: Record<string, number> = {};
  SIDE_TOTALS.captured.forEach((metric, i) => (side[metric] = Number(match[from + i])));
  return side as HeadSide;
}

/**
 * The record's totals before `daily`: matched where the record is written as the schema writes it
 * (from its first character, every member in order, so each capture is the record's own), else
 * parsed; null when it cannot be read so (the caller parses the record whole). Parsing the head was
 * most of what the tests report spent on a record beyond unpacking it.
 */
export function resultsHead(text: string): ResultsHead | null {
  return matchedHead(text) ?? parsedHead(text);
}

/**
 * resultsHead of a packed record (db/values.ts packJson), decompressing only its text up to `daily`:
 * the tests report reads the totals of most tests, and their daily series are most of the record.
 * The prefix ends at the record's first `,"daily":`; where that one is not the record's own (a metric
 * called "daily" among liftByMetric's keys), its head does not parse. Null then, as when resultsHead
 * of the whole is null: the caller reads the record whole.
 */
export function packedResultsHead(packed: Uint8Array): ResultsHead | null {
  const start = unpackJsonUntil(packed, DAILY_KEY);
  return start === null ? null : resultsHead(start);
}

/** The totals before `daily` where the record is written as the schema writes it, else null. */
export function matchedHead(text: string): ResultsHead | null {
  const match = HEAD.exec(text);
  if (match === null) return null;
  // Number() of a number's JSON text is the number JSON.parse gives.
  return {
    lift: Number(match[1]),
    variantProbabilityWin: Number(match[2]),
    control: headSide(match, 3),
    variant: headSide(match, 3 + SIDE_TOTALS.captured.length),
  };
}

/**
 * The members before `daily`, parsed. `,"daily":` can only be a key (inside a JSON string every
 * quote is escaped); when the first one found is not the record's own, the text before it is not a
 * JSON object once closed, so the parse fails and null is returned: a wrong cut is never read.
 */
function parsedHead(text: string): ResultsHead | null {
  const cut = text.indexOf(DAILY_KEY);
  if (cut < 0) return null;
  let head: unknown;
  try {
    head = JSON.parse(`${text.slice(0, cut)}}`);
  } catch {
    return null;
  }
  if (typeof head !== 'object' || head === null) return null;
  const { control, variant } = head as Partial<ResultsHead>;
  if (typeof control !== 'object' || control === null) return null;
  if (typeof variant !== 'object' || variant === null) return null;
  return head as ResultsHead;
}

/** The daily figures the `daily` report shows of each side, in its columns' order. */
export const DAILY_FIGURES = [
  'visitors',
  'visits',
  'clicks',
  'carts',
  'conversions',
  'orders',
  'revenue',
  'cvr',
  'acr',
  'ctr',
  'aov',
  'rpv',
] as const;
export type DailyFigure = (typeof DAILY_FIGURES)[number];

/**
 * One side of one day as the schema writes it: every metric in SIDE_METRICS' order, each a number or
 * null, then the four segments null. DAILY_FIGURES are captured, in the order they appear.
 */
function sidePattern(): { source: string; captured: DailyFigure[] } {
  const captured: DailyFigure[] = [];
  const wanted = new Set<string>(DAILY_FIGURES);
  // A JSON value made of these characters only is a number (the text is valid JSON); or null.
  const members = SIDE_METRICS.map((metric) => {
    if (!wanted.has(metric)) return `"${metric}":(?:[-+.\\deE]+|null)`;
    captured.push(metric as DailyFigure);
    return `"${metric}":([-+.\\deE]+|null)`;
  });
  const segments = SEGMENTS.map((segment) => `"${segment}":null`);
  return { source: `\\{${[...members, ...segments].join(',')}\\}`, captured };
}

const SIDE = sidePattern();
/** Where each of a side's figures is in a day's match (1 is the date). */
export type FigureIndex = Readonly<Record<DailyFigure, number>>;

function figureIndex(offset: number): FigureIndex {
  const index = {} as Record<DailyFigure, number>;
  for (const figure of DAILY_FIGURES) index[figure] = offset + SIDE.captured.indexOf(figure);
  return index;
}

const CONTROL_AT = figureIndex(2);
const VARIANT_AT = figureIndex(2 + SIDE.captured.length);
/** One member of `daily`: an ISO date key, its performance of the two sides, and what follows it. */
const DAY = new RegExp(
  `"(\\d{4}-\\d{2}-\\d{2})":\\{"performance":\\{"control":${SIDE.source},"variant":${SIDE.source}\\}\\}([,}])`,
  'y',
);

/**
 * One day of the daily series as matched: the date at index 1, then each side's DAILY_FIGURES as written
 * (a number's text, or 'null'), the control's at CONTROL_AT and the variant's at VARIANT_AT.
 */
export type DayMatch = RegExpExecArray;
export { CONTROL_AT, VARIANT_AT };

/**
 * The record's daily series in date order, as matched, or null when the record is not laid out as the
 * schema lays it out (the caller then parses it whole). The daily report reads a year of days per
 * test this way at a fraction of a full parse, and never converts a number.
 */
export function dailyMatches(
  text: string,
  head: ResultsHead | null = resultsHead(text),
): DayMatch[] | null {
  // The head parses only when this is the record's own `daily` (see resultsHead).
  if (head === null) return null;
  const start = text.indexOf(DAILY_KEY) + DAILY_KEY.length;
  if (text.charCodeAt(start) !== 123 /* { */) return null;
  const days: DayMatch[] = [];
  if (text.charCodeAt(start + 1) === 125 /* } */) return days;
  DAY.lastIndex = start + 1;
  let sorted = true;
  let previous = '';
  for (;;) {
    const match = DAY.exec(text);
    if (match === null) return null;
    const date = match[1] ?? '';
    if (date <= previous) sorted = false;
    previous = date;
    days.push(match);
    if (match[match.length - 1] === '}') break;
  }
  // JSON.stringify keeps the API's order, which is the dates' as a rule: sort only when it is not.
  if (!sorted) days.sort((a, b) => ((a[1] ?? '') < (b[1] ?? '') ? -1 : 1));
  return days;
}

function revenueSide(day: DayMatch, at: FigureIndex): RevenueSide | null {
  const visitors = day[at.visitors];
  const orders = day[at.orders];
  const revenue = day[at.revenue];
  if (visitors === undefined || orders === undefined || revenue === undefined) return null;
  if (visitors === 'null' || orders === 'null' || revenue === 'null') return null;
  // Number() of a number's JSON text is the number JSON.parse gives.
  return { visitors: Number(visitors), orders: Number(orders), revenue: Number(revenue) };
}

/**
 * The days as revenueLift reads them (dailySeries' days: real calendar dates, in order), from the
 * matched text of a record whose head is `head`; null when the record is not laid out as the schema
 * lays it out, or a figure read is not a number (the caller then parses it whole).
 */
export function revenueDays(text: string, head: ResultsHead): RevenueDay[] | null {
  const days = dailyMatches(text, head);
  if (days === null) return null;
  const out: RevenueDay[] = [];
  for (const day of days) {
    if (dayNumberOf(day[1] ?? '') === null) return null;
    const control = revenueSide(day, CONTROL_AT);
    const variant = revenueSide(day, VARIANT_AT);
    if (control === null || variant === null) return null;
    out.push({ control, variant });
  }
  return out;
}
