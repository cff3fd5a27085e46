// User-data migration 8: each test's probability at both ends of its store's review window, kept beside
// its last seen state. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * The Changes view compares each test's probability to win at the store's review mark with its newest;
 * found by three index walks a test, that took most of the view's time at 20 stores. These columns
 * hold the answer (db/review.ts keeps them true on every snapshot, review mark and thinning):
 * last_at / last_probability: the newest snapshot (by time, then id);
 * mark_at / mark_probability: the last snapshot at or before the store's reviewed_at, else the first.
 */
const SQL = `
ALTER TABLE user.test_state ADD COLUMN last_at TEXT;
ALTER TABLE user.test_state ADD COLUMN last_probability REAL;
ALTER TABLE user.test_state ADD COLUMN mark_at TEXT;
ALTER TABLE user.test_state ADD COLUMN mark_probability REAL;
UPDATE user.test_state AS s SET
  (last_at, last_probability) = (
    SELECT x.at, x.probability_to_win FROM user.test_snapshots x
    WHERE x.store_id = s.store_id AND x.test_id = s.test_id ORDER BY x.at DESC, x.id DESC LIMIT 1),
  (mark_at, mark_probability) = (
    SELECT x.at, x.probability_to_win FROM user.test_snapshots x
    WHERE x.store_id = s.store_id AND x.test_id = s.test_id
      AND x.at <= coalesce((SELECT m.reviewed_at FROM user.store_marks m WHERE m.store_id = s.store_id), '')
    ORDER BY x.at DESC, x.id DESC LIMIT 1);
UPDATE user.test_state AS s SET
  (mark_at, mark_probability) = (
    SELECT x.at, x.probability_to_win FROM user.test_snapshots x
    WHERE x.store_id = s.store_id AND x.test_id = s.test_id ORDER BY x.at, x.id LIMIT 1)
WHERE s.mark_at IS NULL;
`;

export const userMigration008: Migration = {
  version: 8,
  up: (db) => db.exec(SQL),
};
