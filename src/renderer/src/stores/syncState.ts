// How a store's sync state reads in the sidebar: a coloured dot (with a word for screen readers) and an age.
import type { StoreSummary } from '#shared/contract/index';
import { formatAge, formatPercent } from '../lib/format';

export {
  allOffline,
  FRESHNESS_LABEL,
  freshness,
  isUnreachable,
  partialStores,
  type Freshness,
} from '#shared/domain/sync-health';

/** The short text beside a store: its progress while syncing, else the time since its last sync. */
export function syncAge(store: StoreSummary, now: number): string {
  const { state, progress, lastSyncedAt } = store.sync;
  if (state === 'syncing') {
    if (progress?.total) return formatPercent((progress.done / progress.total) * 100, 0);
    return '…';
  }
  return lastSyncedAt === null ? 'never' : formatAge(lastSyncedAt, now);
}
