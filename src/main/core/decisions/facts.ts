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
 * A day packed as float64: its number, then each side's counts in this order (control, then variant);
 * the whole series Brotli-compressed (packBytes), since counts in float64 are mostly zero bytes.
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

export function packDays(days: readonly DecisionDay[]): Uint8Array {
  const values = new Float64Array(days.length * PER_DAY);
  days.forEach((day, i) => {
    let at = i * PER_DAY;
    values[at++] = day.dayNumber;
    for (const side of [day.control, day.variant])
      for (const field of SIDE_FIELDS) values[at++] = side[field];
  });
  return packBytes(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}

/** The days of packDays, or null when the bytes are not packed days. */
export function unpackDays(stored: Uint8Array): DecisionDay[] | null {
  const packed = unpackBytes(stored);
  if (packed === null || packed.byteLength % (PER_DAY * 8) !== 0) return null;
  // A copy, since a Float64Array needs its bytes aligned to 8.
  const values = new Float64Array(packed.byteLength / 8);
  new Uint8Array(values.buffer).set(packed);
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
