// `tags.*`: the tags seen on cached tests of one store or all.
import type { Services } from '#shared/contract/index';
import { listTags } from '../db/cache/reads';
import type { Db } from '../db/types';

export function createTagsService(db: Db): Services['tags'] {
  return { list: async ({ storeId }) => listTags(db, storeId) };
}
