// probabilityEnds as the snapshots alone give it, at any time (three index walks a test): what the
// Changes view read before the ends were kept on the state rows, kept as the reference they are held to.
import { statement } from '#core/db/statements';
import type { Db } from '#core/db/types';
import type { ProbabilityEnds } from '#core/db/history/review';

export function probabilityEndsAt(db: Db, storeId: string, since: string): ProbabilityEnds[] {
  return statement<ProbabilityEnds>(
    db,
    `SELECT s.test_id AS testId,
            b.probability_to_win AS before, b.id IS NOT NULL AS beforeKnown,
            n.probability_to_win AS now, n.at AS nowAt
     FROM user.test_state s
     JOIN user.test_snapshots n ON n.id = (
       SELECT id FROM user.test_snapshots x WHERE x.store_id = s.store_id AND x.test_id = s.test_id
       ORDER BY x.at DESC, x.id DESC LIMIT 1)
     LEFT JOIN user.test_snapshots b ON b.id = coalesce(
       (SELECT id FROM user.test_snapshots x WHERE x.store_id = s.store_id AND x.test_id = s.test_id AND x.at <= @since
        ORDER BY x.at DESC, x.id DESC LIMIT 1),
       -- A date before Splitbook first saw the test: compare with the first state it knows.
       (SELECT id FROM user.test_snapshots x WHERE x.store_id = s.store_id AND x.test_id = s.test_id
        ORDER BY x.at, x.id LIMIT 1))
     WHERE s.store_id = @storeId AND n.at > @since`,
  ).all({ storeId, since });
}
