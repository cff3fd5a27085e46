// `review.*`: the Changes view since each store's last review, marking stores reviewed, a test's history.
import type { Services } from '#shared/contract/index';
import { problem } from '#shared/problem';
import { getStoreRow, listStoreRows } from '../db/cache/stores';
import { markReviewed } from '../db/history/review';
import type { Db } from '../db/types';
import { listChanges, testHistory } from '../review/changes';

export function createReviewService(db: Db, clock: () => number): Services['review'] {
  return {
    changes: async (input) => listChanges(db, input),
    async markReviewed({ storeId }) {
      if (storeId !== null && !getStoreRow(db, storeId)) {
        throw problem('notFound', 404, 'Store not found', `No store with id ${storeId}.`);
      }
      const reviewedAt = new Date(clock()).toISOString();
      const storeIds = storeId === null ? listStoreRows(db).map((s) => s.id) : [storeId];
      db.transaction(() => {
        for (const id of storeIds) markReviewed(db, id, reviewedAt);
      }).immediate();
      return { reviewedAt, storeIds };
    },
    history: async ({ storeId, testId }) => testHistory(db, storeId, testId),
  };
}
