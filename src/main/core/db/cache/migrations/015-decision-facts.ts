// Migration 15: what each test's call is made from that no setting changes, kept beside its results. Frozen once released.
import type { Migration } from './migration';

/**
 * A settings change makes every call again (decisions/refresh.ts); unpacking and
 * validating each test's results for it cost more than the call itself. `results_facts` keeps, per
 * test with results, the facts the call is made from (shared/domain/decisions decisionFacts: the goal,
 * its figures, the data checks, as JSON; `facts` is NULL for a test that can have no call) and the
 * completed days' counts packed as float64 (`days`). They carry their inputs' version: the row goes with
 * its results (replaced whole, the delete cascades), `test_hash` is a hash of the test's record they
 * were made from, and `version` the rules' and the format's; a row that does not match is not read.
 * Written with the results and by the refresh; filled in for results cached before as calls are made.
 */
const SQL = `
CREATE TABLE results_facts (
  store_id  TEXT NOT NULL,
  test_id   TEXT NOT NULL,
  version   TEXT NOT NULL,
  test_hash TEXT NOT NULL,
  facts     TEXT,
  days      BLOB NOT NULL,
  PRIMARY KEY (store_id, test_id),
  FOREIGN KEY (store_id, test_id) REFERENCES results (store_id, test_id) ON DELETE CASCADE
) STRICT;
`;

export const migration015: Migration = { version: 15, up: (db) => db.exec(SQL) };
