// Writes of results: one test's results replaced whole, with the figures the list sorts on copied to the test.
import type { TestResults } from '../../../shared/api';
import { clearSetAside } from './set-aside';
import { statement } from './statements';
import type { Db } from './types';
import { toFlag, toJson } from './values';

/** One test's results as a sync writes them. */
export interface ResultsWrite {
  storeId: string;
  testId: string;
  results: TestResults;
  fetchedAt: string;
  /** The test's `updatedAt` and `status` when the results were fetched, to tell later whether they can have changed. */
  testUpdatedAt: string;
  testStatus: string;
}

const DELETE_RESULTS = `DELETE FROM results WHERE store_id = ? AND test_id = ?`;
const INSERT_RESULTS = `
  INSERT INTO results (
    store_id, test_id, status, total_visitors, control_split, variant_split, winner, lift, change_revenue,
    control_probability_win, variant_probability_win, tier, leading_variant, probability_to_win,
    not_yet_stable, tier_reached_at, fetched_at, test_updated_at, test_status
  ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_RESULTS_RAW = `INSERT INTO results_raw (store_id, test_id, raw_json) VALUES (?, ?, ?)`;
const COPY_RESULTS_TO_TEST = `
  UPDATE tests SET probability_to_win = ?, lift = ?, visitors = ?, tier = ?, leader = ?
  WHERE store_id = ? AND id = ?`;

/** Replaces a test's cached results (deleting cascades to the old raw JSON: nothing of them lingers). */
export function upsertResults(db: Db, write: ResultsWrite): void {
  const { storeId, testId, results } = write;
  const { lifecycle } = results;
  db.transaction(() => {
    statement(db, DELETE_RESULTS).run(storeId, testId);
    statement(db, INSERT_RESULTS).run(
      storeId,
      testId,
      results.status,
      results.totalVisitors,
      results.controlSplit,
      results.variantSplit,
      results.winner,
      results.lift,
      results.changeRevenue,
      results.controlProbabilityWin,
      results.variantProbabilityWin,
      lifecycle.tier,
      lifecycle.leadingVariant,
      lifecycle.probabilityToWin,
      toFlag(lifecycle.notYetStable),
      lifecycle.tierReachedAt,
      write.fetchedAt,
      write.testUpdatedAt,
      write.testStatus,
    );
    statement(db, INSERT_RESULTS_RAW).run(storeId, testId, toJson(results));
    statement(db, COPY_RESULTS_TO_TEST).run(
      results.variantProbabilityWin,
      results.lift,
      results.totalVisitors,
      lifecycle.tier,
      lifecycle.leadingVariant,
      storeId,
      testId,
    );
    clearSetAside(db, storeId, 'results', testId);
  })();
}

/** A cached test with what its cached results were fetched for: the input of the sync's results policy. */
export type ResultsCandidate = {
  id: string;
  status: string;
  updatedAt: string;
  fetchedAt: string | null;
  fetchedForUpdatedAt: string | null;
  fetchedForStatus: string | null;
};

const RESULTS_CANDIDATES = `
  SELECT t.id, t.status, t.updated_at AS updatedAt, r.fetched_at AS fetchedAt,
         r.test_updated_at AS fetchedForUpdatedAt, r.test_status AS fetchedForStatus
  FROM tests t LEFT JOIN results r ON r.store_id = t.store_id AND r.test_id = t.id
  WHERE t.store_id = ? AND t.removed = 0
  ORDER BY t.updated_at DESC, t.id`;

/** Every test of the store not marked removed, most recently updated first, with its cached results' basis. */
export function resultsCandidates(db: Db, storeId: string): ResultsCandidate[] {
  return statement<ResultsCandidate>(db, RESULTS_CANDIDATES).all(storeId);
}
