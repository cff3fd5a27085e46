// Records a sync set aside (they failed validation), for the current scope.
import type { SetAsideRecord } from '../../../shared/contract';
import { api } from '../lib/api';
import { ScopedList } from '../lib/scopedList.svelte';

export const issues = new ScopedList<SetAsideRecord>(
  (storeId) => api.sync.issues({ storeId }),
  (record) => `${record.storeId}:${record.resource}:${record.recordId ?? ''}:${record.seenAt}`,
);
