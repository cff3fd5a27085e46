// `audiences.*`: the cached custom audiences of one store or all.
import type { Services } from '../../../shared/contract';
import { listAudiences, type Db } from '../db';

export function createAudiencesService(db: Db): Services['audiences'] {
  return { list: async ({ storeId }) => listAudiences(db, storeId) };
}
