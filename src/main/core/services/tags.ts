// `tags.*`: the tags seen on cached tests of one store or all.
import type { Services } from '../../../shared/contract';
import { listTags, type Db } from '../db';

export function createTagsService(db: Db): Services['tags'] {
  return { list: async ({ storeId }) => listTags(db, storeId) };
}
