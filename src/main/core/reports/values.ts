// Cell values from cached records: timestamps in UTC, API percents as fractions, numbers read defensively.
import { NumberText, type CsvValue } from './csv';

/** A timestamp as ISO 8601 in UTC ('…Z'); text the clock cannot read is kept as sent. */
export function utc(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value === '') return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : value;
}

/**
 * An API percent (1.32) as a fraction (0.0132), null kept. The decimal point is moved in the
 * number's shortest decimal text, so -5.2 becomes -0.052 (dividing by 100 in binary would give
 * -0.052000000000000005).
 */
export function fraction(percent: number | null | undefined): number | null {
  if (typeof percent !== 'number' || !Number.isFinite(percent)) return null;
  const value = Number(`${percent}e-2`);
  return Number.isFinite(value) ? value : hundredth(String(percent)); // 1e-7 is written with an exponent
}

/** The side figures the API sends in percent, which the reports write as fractions. */
export const PERCENT_FIGURES: ReadonlySet<string> = new Set(['cvr', 'acr', 'ctr']);

/**
 * An API percent as a fraction cell: its text (String(n), as the cached record holds it) with the
 * point moved (fractionText), so every report writes a percent's fraction with the API's own digits
 * and reads it back as fraction() gives it. Null kept.
 */
export function fractionCell(percent: number | null | undefined): NumberText | null {
  if (typeof percent !== 'number' || !Number.isFinite(percent)) return null;
  return new NumberText(fractionText(String(percent)));
}

/**
 * The number a decimal text names, times 10⁻², by moving its exponent: "1.32" → 1.32e-2, "5e-7" →
 * 5e-9 (appending "e-2" to a text that has an exponent already would not be a number).
 */
function hundredth(text: string): number {
  if (!Number.isFinite(Number(text))) return Number.NaN;
  const e = text.search(/[eE]/);
  return Number(e < 0 ? `${text}e-2` : `${text.slice(0, e)}e${Number(text.slice(e + 1)) - 2}`);
}

/**
 * An API percent's text as its fraction's text: the same digits with the decimal point moved two
 * places ("2.4539877300613498" → "0.024539877300613498", "-5.2" → "-0.052", "5e-7" → "5e-9"), laid out
 * as Number.prototype.toString lays out a number of those digits (no exponent from 1e-6 to 1e21).
 *
 * The text is the API's figure ÷ 100 exactly, so it reads back as the very double fraction() gives
 * (both are that decimal, correctly rounded). Where the percent has at most 15 significant digits it is
 * also String(fraction()) character for character: a double holds 15 digits, so no shorter text names
 * it. With 16 or 17 it keeps the API's digits, where String() of the double may end otherwise
 * (0.16666666666666664 against 0.16666666666666663, the same number). Moving the point costs a scan of
 * the text; converting to a double and printing it back was most of the `daily` export's time.
 * Text that is no number gives ''.
 */
export function fractionText(percent: string): string {
  const short = shortFractionText(percent);
  if (short !== null) return short;
  const end = percent.length;
  const negative = percent.charCodeAt(0) === 45; /* - */
  let i = negative ? 1 : 0;
  let digits = 0;
  let point = -1;
  let first = -1; // the first and last significant (non-zero) digits
  let last = -1;
  for (; i < end; i++) {
    const c = percent.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      digits += 1;
      if (c !== 48) {
        if (first < 0) first = i;
        last = i;
      }
    } else if (c === 46 /* . */ && point < 0) point = i;
    else break;
  }
  if (digits === 0) return '';
  let exponent = 0;
  if (i < end) {
    const c = percent.charCodeAt(i);
    const power = percent.slice(i + 1);
    if ((c !== 101 && c !== 69) /* e E */ || !/^[+-]?\d{1,6}$/.test(power)) return '';
    exponent = Number(power);
  }
  if (first < 0) return '0';
  const mantissaEnd = point < 0 ? i : point;
  // The significant digits, and n with value = 0.digits × 10ⁿ (ECMAScript's n).
  const significant =
    point > first && point < last
      ? percent.slice(first, point) + percent.slice(point + 1, last + 1)
      : percent.slice(first, last + 1);
  const n = (first < mantissaEnd ? mantissaEnd - first : mantissaEnd - first + 1) + exponent - 2;
  // Beyond a double's range the decimal reads back as 0 or Infinity: write what that double is.
  if (n > 309 || n < -323) {
    const value = Number(`${percent.slice(0, i)}e${exponent - 2}`);
    return Number.isFinite(value) ? String(value) : '';
  }
  const k = significant.length;
  const sign = negative ? '-' : '';
  if (k <= n && n <= 21) return sign + significant + '0'.repeat(n - k);
  if (0 < n && n <= 21) return `${sign}${significant.slice(0, n)}.${significant.slice(n)}`;
  if (-6 < n && n <= 0) return `${sign}0.${'0'.repeat(-n)}${significant}`;
  const e = n - 1;
  const mantissa = k > 1 ? `${significant[0]}.${significant.slice(1)}` : significant;
  return `${sign}${mantissa}e${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}

/**
 * fractionText of the shapes most API percents have, without the scan: "d.ddd" and "dd.ddd" (a first
 * digit of 1–9, no sign, no exponent, a last digit that is not 0) become "0.0d…" and "0.dd…", the
 * point moved two places, as the general path lays them out (a fraction from 0.01 to 1 has no
 * exponent); "0.ddd" with a first decimal of 1–9 becomes "0.00ddd". Null for any other shape.
 */
function shortFractionText(percent: string): string | null {
  const end = percent.length;
  const last = percent.charCodeAt(end - 1);
  if (last < 49 || last > 57 /* 1–9 */) return null;
  const first = percent.charCodeAt(0);
  if (first < 48 || first > 57) return null;
  const point = percent.charCodeAt(1) === 46 ? 1 : percent.charCodeAt(2) === 46 ? 2 : -1;
  // Digits only after the point: no exponent, no second point.
  if (point < 0 || end <= point + 1 || !allDigits(percent, point + 1, end)) return null;
  if (point === 2) {
    const second = percent.charCodeAt(1);
    if (first === 48 || second < 48 || second > 57) return null;
    return `0.${percent.slice(0, 2)}${percent.slice(3)}`;
  }
  if (first !== 48) return `0.0${percent[0] ?? ''}${percent.slice(2)}`;
  const decimal = percent.charCodeAt(2);
  return decimal >= 49 && decimal <= 57 ? `0.00${percent.slice(2)}` : null;
}

function allDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** A field of an untyped record as a finite number, or null. */
export function num(record: unknown, key: string): number | null {
  if (typeof record !== 'object' || record === null) return null;
  const value: unknown = Reflect.get(record, key);
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** variant / control - 1, or null when it cannot be computed. */
export function relative(control: number | null, variant: number | null): number | null {
  return control === null || variant === null || control === 0 ? null : variant / control - 1;
}

/** Values for a typed column: anything else becomes an empty cell. */
export function cell(value: unknown): CsvValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return JSON.stringify(value);
}

/** JSON.parse that yields null for text that is not JSON (a damaged cache row is exported as blanks). */
export function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * Tag names joined with "; ", or null for none. A tag name is a one-line label: a line break inside one
 * would, in a reader that splits rows at raw line breaks (LibreOffice with ';' as separator), start a
 * row with what follows it, e.g. '=1+1'; it becomes a space.
 */
export function tagsCell(names: readonly string[]): string | null {
  return names.map(oneLine).join('; ') || null;
}

/** Text with its line breaks made spaces. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
