// `campaigns.*`: the cached active campaigns of one store or all.
import type { Services } from '#shared/contract/index';
import { listCampaigns } from '../db/cache/reads';
import type { Db } from '../db/types';

export function createCampaignsService(db: Db): Services['campaigns'] {
  return { list: async ({ storeId }) => listCampaigns(db, storeId) };
}
