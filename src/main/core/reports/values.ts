// Cell values from cached records: timestamps in UTC, API percents as fractions, numbers read defensively.
import type { CsvValue } from './csv';

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

/**
 * The number a decimal text names, times 10⁻², by moving its exponent: "1.32" → 1.32e-2, "5e-7" →
 * 5e-9 (appending "e-2" to a text that has an exponent already would not be a number).
 */
function hundredth(text: string): number {
  if (!Number.isFinite(Number(text))) return Number.NaN;
  const e = text.search(/[eE]/);
  return Number(e < 0 ? `${text}e-2` : `${text.slice(0, e)}e${Number(text.slice(e + 1)) - 2}`);
}

/** Powers of ten a double holds exactly (10²² is the last). */
const EXACT_TENS = Array.from({ length: 23 }, (_, n) => 10 ** n);
const MAX_EXACT = 2 ** 53;

/**
 * The number a JSON number's text names, times 10⁻², when one IEEE division gives it exactly: its
 * digits make an integer a double holds (at most 2⁵³) and the power of ten is exact (up to 10²²), so
 * the division's one rounding gives the nearest double, as Number() reads the text (Clinger's fast
 * path). Undefined otherwise (an exponent, more digits), and for text that is not a JSON number.
 */
function exactHundredth(text: string): number | undefined {
  let i = text.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  const negative = i === 1;
  let digits = 0;
  let decimals = 0;
  let c = text.charCodeAt(i);
  if (c === 48 /* 0 */) c = text.charCodeAt(++i);
  else {
    if (!(c >= 49 && c <= 57)) return undefined;
    while (c >= 48 && c <= 57) {
      digits = digits * 10 + (c - 48);
      c = text.charCodeAt(++i);
    }
  }
  if (c === 46 /* . */) {
    c = text.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) return undefined;
    while (c >= 48 && c <= 57) {
      digits = digits * 10 + (c - 48);
      decimals += 1;
      c = text.charCodeAt(++i);
    }
  }
  // From 2⁵³ on, a sum may have been rounded (to 2⁵³ itself, too); below it every one is exact.
  if (i !== text.length || digits >= MAX_EXACT) return undefined;
  const power = EXACT_TENS[decimals + 2];
  if (power === undefined) return undefined;
  return negative ? -(digits / power) : digits / power;
}

/** fraction()'s result as text, from the percent's text (a cached record's number as written). */
export function fractionText(percent: string): string {
  const exact = exactHundredth(percent);
  if (exact !== undefined) return String(exact);
  const value = Number(`${percent}e-2`);
  if (Number.isFinite(value)) return String(value);
  const moved = hundredth(percent); // a text with an exponent of its own ("5e-7")
  return Number.isFinite(moved) ? String(moved) : '';
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

/**
 * `make` remembering its last two answers: a writer of millions of rows formats a text cell once per
 * run of equal values (a test's id repeats on each of its rows, a date on its two sides).
 */
export function lastTwo(make: (value: string) => string): (value: string) => string {
  let a = '';
  let aOut = '';
  let b = '';
  let bOut = '';
  let filled = 0;
  return (value) => {
    if (filled > 0 && value === a) return aOut;
    if (filled > 1 && value === b) return bOut;
    const out = make(value);
    b = a;
    bOut = aOut;
    a = value;
    aOut = out;
    filled += 1;
    return out;
  };
}
