// The rows of results_facts (cache migration 15): what each test's call is made from that no setting
// changes, kept beside its results in the format core/decisions/facts.ts makes and reads.
import { write } from '../sql';
import type { Db } from '../types';

const WRITE_FACTS = write<{
  storeId: string;
  testId: string;
  version: string;
  testHash: string;
  facts: string | null;
  days: Uint8Array;
}>(`
  INSERT INTO results_facts (store_id, test_id, version, test_hash, facts, days)
  VALUES (@storeId, @testId, @version, @testHash, @facts, @days)
  ON CONFLICT (store_id, test_id) DO UPDATE SET version = excluded.version, test_hash = excluded.test_hash,
    facts = excluded.facts, days = excluded.days`);

/**
 * A test's facts as results_facts keeps them: the format's version, the hash of the record they were
 * made from, the facts' JSON (null when the test can have no call) and the packed days.
 */
export type FactsRow = {
  version: string;
  testHash: string;
  facts: string | null;
  days: Uint8Array;
};

/** Keeps a test's facts beside its results. */
export function writeFacts(db: Db, storeId: string, testId: string, row: FactsRow): void {
  WRITE_FACTS.run(db, { storeId, testId, ...row });
}

/** The columns of results_facts as the refresh reads them (NULLs when the test has none yet). */
export type StoredFacts = {
  factsVersion: string | null;
  testHash: string | null;
  facts: string | null;
  days: Uint8Array | null;
};
