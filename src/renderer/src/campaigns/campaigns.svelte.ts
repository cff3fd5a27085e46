// The campaigns of the current scope, as cached by the last syncs.
import type { CampaignRow } from '#shared/contract/index';
import { api } from '../lib/api';
import { ScopedList } from '../lib/scopedList.svelte';

export const campaigns = new ScopedList<CampaignRow>(
  (storeId) => api.campaigns.list({ storeId }),
  (row) => `${row.storeId}:${row.campaign.id}`,
  ['campaigns'],
);
