// What each test's call is made from that no setting changes, kept beside its results (cache migration
// 15), so a settings change makes every call again without unpacking and validating every result.
import { createHash } from 'node:crypto';
import {
  DECISION_RULES_VERSION,
  DecisionFacts,
  type DecisionData,
  type DecisionDay,
  type SideSums,
} from '#shared/domain/decisions/index';
import { statement } from '../statements';
import type { Db } from '../types';

/** The rules' version and this file's format: facts kept under another are made again. */
export const FACTS_VERSION = `${DECISION_RULES_VERSION}.1`;

/** A day packed as float64: its number, then each side's counts in this order (control, then variant). */
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
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

/** The days of packDays, or null when the bytes are not a whole number of days. */
export function unpackDays(packed: Uint8Array): DecisionDay[] | null {
  if (packed.byteLength % (PER_DAY * 8) !== 0) return null;
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

const WRITE_FACTS = `
  INSERT INTO results_facts (store_id, test_id, version, test_hash, facts, days) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (store_id, test_id) DO UPDATE SET version = excluded.version, test_hash = excluded.test_hash,
    facts = excluded.facts, days = excluded.days`;

/** A test's facts as results_facts keeps them: made from the record whose hash it holds; facts null when it can have no call. */
export type FactsRow = { testHash: string; facts: string | null; days: Uint8Array };

/** The row of a test's facts (null: it can have no call), made from the record `testJson`: no I/O. */
export function factsRow(testJson: string, data: DecisionData | null): FactsRow {
  return {
    testHash: testHash(testJson),
    facts: data === null ? null : JSON.stringify(data.facts),
    days: packDays(data?.days ?? []),
  };
}

/** Keeps a test's facts beside its results (factsRow). */
export function writeFacts(db: Db, storeId: string, testId: string, row: FactsRow): void {
  statement(db, WRITE_FACTS).run(storeId, testId, FACTS_VERSION, row.testHash, row.facts, row.days);
}

/** The columns of results_facts as the refresh reads them (NULLs when the test has none yet). */
export type StoredFacts = {
  factsVersion: string | null;
  testHash: string | null;
  facts: string | null;
  days: Uint8Array | null;
};

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
