// `review.*`: the Changes view since each store's last review, marking stores reviewed, a test's history.
import type { Services } from '#shared/contract/index';
import { problem } from '#shared/problem';
import { getStoreRow, listStoreRows } from '../db/cache/stores';
import { markReviewed } from '../db/history/review';
import type { Db } from '../db/types';
import { listChanges, testHistory } from '../review/changes';
import type { SharedReviews } from '../team/reviews';

/** `shared`: a shared store's review is also written as my review mark in the team layer (team/reviews.ts). */
export function createReviewService(
  db: Db,
  clock: () => number,
  shared?: SharedReviews,
): Services['review'] {
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
      for (const id of storeIds) shared?.markReviewed(id, reviewedAt);
      return { reviewedAt, storeIds };
    },
    history: async ({ storeId, testId }) => testHistory(db, storeId, testId),
  };
}
