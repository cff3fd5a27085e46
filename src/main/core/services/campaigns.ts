// `campaigns.*`: the cached active campaigns of one store or all.
import type { Services } from '../../../shared/contract';
import { listCampaigns, type Db } from '../db';

export function createCampaignsService(db: Db): Services['campaigns'] {
  return { list: async ({ storeId }) => listCampaigns(db, storeId) };
}
