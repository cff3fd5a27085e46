// How a results record's JSON text is laid out before it is packed (cache migration 22): its daily
// series as columns, and the rates that are exact ratios of a day's own counts left out; read back to
// the very same text.
//
// Why: a record's daily series is most of it, and most of a day's packed bytes were its rates (cvr,
// acr, rpv… as full doubles, 15–17 digits that do not compress), each a ratio of two counts of the
// same day. A rate is left out only where, for every day, the ratio computed again is the same double
// (Object.is), and the layout is kept only where it reads back to the record's exact text (checked as
// it is made): any other record, or a day of another shape, is kept as its plain text. Nothing a
// reader sees changes; only the bytes stored do.

import { SEGMENTS, SIDE_METRICS } from '#shared/api/results';

/** Starts a laid-out text and separates its parts; JSON text never holds it raw (it is escaped). */
const MARK = '\u0001';
const DAILY_KEY = ',"daily":';
/** Stands for a number in a day's template; a string of the data that holds it is never laid out. */
const HOLE = '\u0000#';
const HOLE_TEXT = JSON.stringify(HOLE);

/**
 * The rates a side's counts give, as ratio(numerator, denominator) × scale: the arithmetic a rate
 * must match to the last bit to be left out (a side with a zero denominator gives 0).
 */
const RATES: Record<string, readonly [string, string, number]> = {
  cvr: ['conversions', 'visitors', 100],
  cnv: ['conversions', 'visits', 100],
  ctr: ['clicks', 'visits', 100],
  acr: ['carts', 'visitors', 100],
  aov: ['revenue', 'orders', 1],
  rpv: ['revenue', 'visitors', 1],
  rps: ['revenue', 'visitors', 1],
};

const ratio = (numerator: number, denominator: number, scale: number): number =>
  (denominator === 0 ? 0 : numerator / denominator) * scale;

/**
 * Days' templates written as their index here: a day as the schema lays it out (its sides' metrics in
 * order, no segments), the shape of every day the simulator sends, which would otherwise cost each
 * record about 190 bytes packed. Only ever appended to: records refer to these by position.
 */
const TEMPLATES: readonly string[] = [
  (() => {
    const side = {
      ...Object.fromEntries(SIDE_METRICS.map((metric) => [metric, HOLE])),
      ...Object.fromEntries(SEGMENTS.map((segment) => [segment, null])),
    };
    return JSON.stringify({ performance: { control: side, variant: side } });
  })(),
];

const DAY_MS = 86_400_000;
/** `YYYY-MM-DD` of a day, as the daily series' keys are written. */
const dateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The dates, or `first+count` where they are `count` days in a row from `first` (the usual case). */
function datesOf(dates: readonly string[]): string[] | string {
  const first = dates[0];
  if (first === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(first)) return dates.slice();
  const start = Date.parse(`${first}T00:00:00Z`);
  return dates.every((date, i) => date === dateOf(start + i * DAY_MS))
    ? `${first}+${dates.length}`
    : dates.slice();
}

/** The dates datesOf wrote; null when malformed. */
function datesFrom(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return null;
  const [first = '', count = ''] = value.split('+');
  const start = Date.parse(`${first}T00:00:00Z`);
  const days = Number(count);
  if (!Number.isFinite(start) || !Number.isInteger(days) || days < 0) return null;
  return Array.from({ length: days }, (_, i) => dateOf(start + i * DAY_MS));
}

/** A column left out: `numerator/denominator*scale`, the indexes of the columns it is a ratio of. */
type Derived = string;
/** The laid-out daily series: its dates, one day's text with a hole for each number, the columns. */
type Columns = { k: string[] | string; t: string | number; c: (number[] | Derived)[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The daily series as columns, or null when its days do not share one shape. The first day's
 * template names each number (the object holding it and its key), so the rates can be matched to
 * the counts beside them.
 */
function columnsOf(daily: Record<string, unknown>): Columns | null {
  const dates = Object.keys(daily);
  if (dates.length === 0) return null;
  let template: string | null = null;
  const columns: number[][] = [];
  /** Of the first day: each object holding numbers, its keys → column index. */
  const holders = new Map<object, Map<string, number>>();
  for (const date of dates) {
    let at = 0;
    const first = template === null;
    const text = JSON.stringify(daily[date], function (this: object, key: string, value: unknown) {
      if (typeof value !== 'number') return value;
      if (first) {
        columns.push([]);
        const keys = holders.get(this) ?? new Map<string, number>();
        keys.set(key, at);
        holders.set(this, keys);
      }
      const column = columns[at++];
      if (column === undefined) return value; // more numbers than the first day: the shape differs
      column.push(value);
      return HOLE;
    });
    if (template === null) template = text;
    else if (text !== template || at !== columns.length) return null;
  }
  if (template === null) return null;
  const laidOut: (number[] | Derived)[] = columns.slice();
  for (const keys of holders.values())
    for (const [rate, [numerator, denominator, scale]] of Object.entries(RATES)) {
      const r = keys.get(rate);
      const n = keys.get(numerator);
      const d = keys.get(denominator);
      if (r === undefined || n === undefined || d === undefined) continue;
      const [rates, ns, ds] = [columns[r], columns[n], columns[d]];
      if (rates === undefined || ns === undefined || ds === undefined) continue;
      if (rates.every((value, i) => Object.is(value, ratio(ns[i] ?? NaN, ds[i] ?? NaN, scale))))
        laidOut[r] = `${n}/${d}*${scale}`;
    }
  const known = TEMPLATES.indexOf(template);
  return { k: datesOf(dates), t: known >= 0 ? known : template, c: laidOut };
}

/** A number as JSON.stringify writes it (String(n) where finite). */
const numberText = (n: number | undefined): string =>
  n !== undefined && Number.isFinite(n) ? String(n) : 'null';

/** The daily series' JSON text from its columns, as JSON.stringify wrote it; null when malformed. */
function dailyText(value: unknown): string | null {
  if (!isRecord(value) || !Array.isArray(value.c)) return null;
  const dates = datesFrom(value.k);
  const template = typeof value.t === 'number' ? TEMPLATES[value.t] : value.t;
  if (dates === null || typeof template !== 'string') return null;
  const parts = template.split(HOLE_TEXT);
  const stored: unknown[] = value.c;
  if (stored.length !== parts.length - 1) return null;
  /** Each column's numbers as their text: what the record holds, written once a number. */
  const columns: string[][] = [];
  /** A column a rate is a ratio of: one stored whole (a count), wherever it stands. */
  const counts = (at: number | undefined): unknown[] | null => {
    const column = at === undefined ? undefined : stored[at];
    return Array.isArray(column) ? column : null;
  };
  for (const column of stored) {
    if (Array.isArray(column)) {
      columns.push(column.map((n) => numberText(typeof n === 'number' ? n : undefined)));
      continue;
    }
    if (typeof column !== 'string') return null;
    const [n, d, scale] = column.split(/[/*]/).map(Number);
    const ns = counts(n);
    const ds = counts(d);
    if (ns === null || ds === null || scale === undefined) return null;
    columns.push(dates.map((_, i) => numberText(ratio(Number(ns[i]), Number(ds[i]), scale))));
  }
  // One array joined once: a year of days is some 30,000 pieces.
  const pieces: string[] = ['{'];
  dates.forEach((date, i) => {
    pieces.push(i === 0 ? '' : ',', JSON.stringify(date), ':', parts[0] ?? '');
    for (let c = 0; c < columns.length; c++)
      pieces.push(columns[c]?.[i] ?? 'null', parts[c + 1] ?? '');
  });
  pieces.push('}');
  return pieces.join('');
}

/** Whether `holder[key]` is a rate its counts beside it give to the last bit (RATES). */
function isDerivedRate(holder: Record<string, unknown>, key: string, value: unknown): boolean {
  const formula = RATES[key];
  if (formula === undefined || typeof value !== 'number') return false;
  const [numerator, denominator, scale] = formula;
  const n = holder[numerator];
  const d = holder[denominator];
  return typeof n === 'number' && typeof d === 'number' && Object.is(value, ratio(n, d, scale));
}

/**
 * The record's members before its daily series as a JSON object, each rate its counts give written
 * as null (the totals' and segments' rates: about a third of what was left of a record packed).
 */
function headWithoutRates(value: Record<string, unknown>): string {
  const head: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === 'daily') break;
    head[key] = value[key];
  }
  return JSON.stringify(head, function (this: unknown, key: string, member: unknown) {
    return isRecord(this) && isDerivedRate(this, key, member) ? null : member;
  });
}

/** The members before the daily series as the record's text has them, rates given back; null if malformed. */
function headText(laidOut: string): string | null {
  let head: unknown;
  try {
    head = JSON.parse(laidOut);
  } catch {
    return null;
  }
  const fill = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(fill);
    if (!isRecord(node)) return;
    for (const [key, member] of Object.entries(node)) {
      const formula = RATES[key];
      if (member === null && formula !== undefined) {
        const [numerator, denominator, scale] = formula;
        const n = node[numerator];
        const d = node[denominator];
        if (typeof n === 'number' && typeof d === 'number') node[key] = ratio(n, d, scale);
      } else fill(member);
    }
  };
  fill(head);
  const text = JSON.stringify(head);
  // The object's closing brace gives way to the daily series' key.
  return text.length < 2 ? null : text.slice(0, -1) + DAILY_KEY;
}

/**
 * The text `json` (JSON.stringify of `value`) laid out for packing, or `json` itself when the record
 * has no daily series of one shape or the layout would not read back to it exactly.
 */
export function layOutRecord(value: unknown, json: string): string {
  if (!isRecord(value) || !isRecord(value.daily)) return json;
  const daily = JSON.stringify(value.daily);
  const cut = json.indexOf(DAILY_KEY + daily);
  if (cut < 0) return json;
  const columns = columnsOf(value.daily);
  if (columns === null) return json;
  const tail = json.slice(cut + DAILY_KEY.length + daily.length);
  const laidOut = `${MARK}${headWithoutRates(value)}${MARK}${JSON.stringify(columns)}${MARK}${tail}`;
  return readBack(laidOut) === json ? laidOut : json;
}

/** Whether `text` is laid out (layOutRecord) rather than a record's plain JSON. */
export const isLaidOut = (text: string): boolean => text.startsWith(MARK);

/** The record's JSON text from what layOutRecord made (plain JSON is returned as it is). */
export function recordText(text: string): string {
  const whole = readBack(text);
  if (whole === null)
    throw new Error('A cached results record is damaged (its daily series does not read back)');
  return whole;
}

/** recordText, or null where the laid-out text does not read back. */
function readBack(text: string): string | null {
  if (!isLaidOut(text)) return text;
  const [, laidHead, columns, tail] = text.split(MARK);
  if (laidHead === undefined || tail === undefined) return null;
  const head = headText(laidHead);
  let daily: string | null;
  try {
    daily = dailyText(JSON.parse(columns ?? ''));
  } catch {
    return null;
  }
  return head === null || daily === null ? null : head + daily + tail;
}

/**
 * The record's text up to and including `,"daily":` from a prefix of what layOutRecord made, read
 * from its head alone; undefined while the prefix does not hold all of the head, null when the head
 * does not read back.
 */
export function laidOutStart(prefix: string): string | null | undefined {
  const end = prefix.indexOf(MARK, MARK.length);
  return end < 0 ? undefined : headText(prefix.slice(MARK.length, end));
}
