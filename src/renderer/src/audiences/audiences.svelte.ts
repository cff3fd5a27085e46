// The custom audiences of the current scope, as cached by the last syncs.
import type { AudienceRow } from '#shared/contract/index';
import { api } from '../lib/api';
import { ScopedList } from '../lib/scopedList.svelte';

export const audiences = new ScopedList<AudienceRow>(
  (storeId) => api.audiences.list({ storeId }),
  (row) => `${row.storeId}:${row.audience.id}`,
  ['audiences'],
);
