// `tests.*`: the test list, its facets, one test and its results, all read from the cache (offline or not).
import type { Services } from '../../../shared/contract';
import { problem } from '../../../shared/problem';
import { getResults, getTestDetail, listTests, testFacets, type Db } from '../db';

export function createTestsService(db: Db): Services['tests'] {
  return {
    list: async (input) => listTests(db, input),
    facets: async (filter) => testFacets(db, filter),
    async get({ storeId, testId }) {
      const detail = getTestDetail(db, storeId, testId);
      if (!detail)
        throw problem('notFound', 404, 'Test not found', `No cached test ${testId} in this store.`);
      return detail;
    },
    results: async ({ storeId, testId }) => getResults(db, storeId, testId),
  };
}
