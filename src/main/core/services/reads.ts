// Read services over the cache: everything the renderer browses, offline or not.
import type { Services } from '../../../shared/contract';
import { problem } from '../../../shared/problem';
import {
  getResults,
  getTestDetail,
  listAudiences,
  listCampaigns,
  listSetAside,
  listTags,
  listTests,
  testFacets,
  type Db,
} from '../db';

export function createQueryServices(db: Db): Pick<Services, 'tests' | 'campaigns' | 'audiences' | 'tags'> & {
  issues: Services['sync']['issues'];
} {
  return {
    tests: {
      list: async (input) => listTests(db, input),
      facets: async (filter) => testFacets(db, filter),
      async get({ storeId, testId }) {
        const detail = getTestDetail(db, storeId, testId);
        if (!detail) throw problem('notFound', 404, 'Test not found', `No cached test ${testId} in this store.`);
        return detail;
      },
      results: async ({ storeId, testId }) => getResults(db, storeId, testId),
    },
    campaigns: { list: async ({ storeId }) => listCampaigns(db, storeId) },
    audiences: { list: async ({ storeId }) => listAudiences(db, storeId) },
    tags: { list: async ({ storeId }) => listTags(db, storeId) },
    issues: async ({ storeId }) => listSetAside(db, storeId),
  };
}
