// What each test's call is made from that no setting changes, kept beside its results (results_facts,
// cache migration 15; db/cache/decision-facts.ts writes it), so a settings change makes every call
// again without unpacking and validating every result: its format, and whether kept facts still hold.
import { createHash } from 'node:crypto';
import {
  DECISION_RULES_VERSION,
  DecisionFacts,
  type DecisionData,
  type DecisionDay,
  type SideSums,
} from '#shared/domain/decisions/index';
import type { FactsRow, StoredFacts } from '../db/cache/decision-facts';
import { packBytes, unpackBytes } from '../db/values';

/** The rules' version and this file's format: facts kept under another are made again. */
export const FACTS_VERSION = `${DECISION_RULES_VERSION}.1`;

/**
 * A day's numbers: its number, then each side's counts in this order (control, then variant). The
 * series is packed (packBytes) as the JSON text of its columns, the day numbers as differences (cache
 * v22: about half the bytes of v20's float64, counts in float64 being mostly zero bytes), or as float64
 * where a number has no exact JSON text (NaN, ±Infinity, -0), as until v22. unpackDays reads both.
 */
const SIDE_FIELDS = [
  'visitors',
  'conversions',
  'carts',
  'clicks',
  'orders',
  'revenue',
] as const satisfies readonly (keyof SideSums)[];
const PER_DAY = 1 + 2 * SIDE_FIELDS.length;

/** The series' numbers as columns, the first (the day numbers) as differences. */
function columnsText(values: Float64Array): string {
  const days = values.length / PER_DAY;
  const columns = Array.from({ length: PER_DAY }, (_, c) =>
    Array.from({ length: days }, (_, d) => {
      const value = values[d * PER_DAY + c] ?? 0;
      return c === 0 && d > 0 ? value - (values[(d - 1) * PER_DAY] ?? 0) : value;
    }),
  );
  return JSON.stringify(columns);
}

/** The numbers of columnsText, or null when the text is not such columns. */
function columnsValues(text: string): Float64Array | null {
  let columns: unknown;
  try {
    columns = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(columns) || columns.length !== PER_DAY) return null;
  const days = Array.isArray(columns[0]) ? columns[0].length : -1;
  const values = new Float64Array(Math.max(0, days) * PER_DAY);
  for (let c = 0; c < PER_DAY; c++) {
    const column: unknown = columns[c];
    if (!Array.isArray(column) || column.length !== days) return null;
    for (let d = 0; d < days; d++) {
      const value: unknown = column[d];
      if (typeof value !== 'number') return null;
      values[d * PER_DAY + c] = c === 0 && d > 0 ? (values[(d - 1) * PER_DAY] ?? 0) + value : value;
    }
  }
  return values;
}

const OPEN_BRACKET = 0x5b; // a float64 day number of a real day starts with a zero byte

export function packDays(days: readonly DecisionDay[]): Uint8Array {
  const values = new Float64Array(days.length * PER_DAY);
  days.forEach((day, i) => {
    let at = i * PER_DAY;
    values[at++] = day.dayNumber;
    for (const side of [day.control, day.variant])
      for (const field of SIDE_FIELDS) values[at++] = side[field];
  });
  const text = columnsText(values);
  const back = columnsValues(text);
  if (days.length > 0 && back !== null && back.every((value, i) => Object.is(value, values[i])))
    return packBytes(Buffer.from(text, 'utf8'));
  return packBytes(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}

/** The numbers of a series packed as float64, or null when the bytes are not whole days. */
function float64Values(packed: Uint8Array): Float64Array | null {
  if (packed.byteLength % (PER_DAY * 8) !== 0) return null;
  // A copy, since a Float64Array needs its bytes aligned to 8.
  const values = new Float64Array(packed.byteLength / 8);
  new Uint8Array(values.buffer).set(packed);
  return values;
}

/** The days of packDays, or null when the bytes are not packed days. */
export function unpackDays(stored: Uint8Array): DecisionDay[] | null {
  const packed = unpackBytes(stored);
  if (packed === null) return null;
  // Text where it opens as columns do and parses so; float64 otherwise (a day number's first byte
  // is never '[' for a real day, but a float64 series is never misread even then).
  const values =
    (packed[0] === OPEN_BRACKET ? columnsValues(packed.toString('utf8')) : null) ??
    float64Values(packed);
  if (values === null) return null;
  const days: DecisionDay[] = [];
  for (let at = 0; at < values.length; at += PER_DAY) {
    const side = (from: number): SideSums => ({
      visitors: values[from] ?? 0,
      conversions: values[from + 1] ?? 0,
      carts: values[from + 2] ?? 0,
      clicks: values[from + 3] ?? 0,
      orders: values[from + 4] ?? 0,
      revenue: values[from + 5] ?? 0,
    });
    days.push({
      dayNumber: values[at] ?? 0,
      control: side(at + 1),
      variant: side(at + 1 + SIDE_FIELDS.length),
    });
  }
  return days;
}

/** The version of a test's record the facts were made from: a hash of its raw JSON. */
export function testHash(testJson: string): string {
  return createHash('sha1').update(testJson).digest('base64url');
}

/** The row of a test's facts (null: it can have no call), made from the record `testJson`: no I/O. */
export function factsRow(testJson: string, data: DecisionData | null): FactsRow {
  return {
    version: FACTS_VERSION,
    testHash: testHash(testJson),
    facts: data === null ? null : JSON.stringify(data.facts),
    days: packDays(data?.days ?? []),
  };
}

/**
 * Whether the facts kept for a test were made from its record as it is now (`testJson`), by this
 * version: only then may a call be made from them.
 */
export function factsHold(stored: StoredFacts, testJson: string): boolean {
  return (
    stored.factsVersion === FACTS_VERSION &&
    stored.days !== null &&
    stored.testHash === testHash(testJson)
  );
}

/** Kept facts (their JSON and packed days) read back; undefined when they do not parse. */
export function parseFacts(facts: string, days: Uint8Array): DecisionData | undefined {
  let value: unknown;
  try {
    value = JSON.parse(facts);
  } catch {
    return undefined;
  }
  const parsed = DecisionFacts.safeParse(value);
  const unpacked = unpackDays(days);
  return parsed.success && unpacked !== null ? { facts: parsed.data, days: unpacked } : undefined;
}

/**
 * The facts kept for a test when they hold (factsHold); null for a test that can have no call;
 * undefined when there are none to trust.
 */
export function readFacts(stored: StoredFacts, testJson: string): DecisionData | null | undefined {
  if (!factsHold(stored, testJson) || stored.days === null) return undefined;
  if (stored.facts === null) return null;
  return parseFacts(stored.facts, stored.days);
}
