// `audiences.*`: the cached custom audiences of one store or all.
import type { Services } from '#shared/contract/index';
import { listAudiences } from '../db/cache/reads';
import type { Db } from '../db/types';

export function createAudiencesService(db: Db): Services['audiences'] {
  return { list: async ({ storeId }) => listAudiences(db, storeId) };
}
