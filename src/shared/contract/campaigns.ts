// `campaigns.*`: the active campaigns of a store or of all stores.
import { z } from 'zod';
import { Campaign } from '../api';
import { method, ScopeInput, StoreId } from './common';

export const CampaignRow = z.object({
  storeId: StoreId,
  storeName: z.string(),
  campaign: Campaign,
});
export type CampaignRow = z.infer<typeof CampaignRow>;

export const campaigns = {
  list: method(ScopeInput, z.array(CampaignRow)),
};
