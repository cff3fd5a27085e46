// How a store's sync state reads in the sidebar: a coloured dot (with a word for screen readers) and an age.
import type { StoreSummary } from '../../../shared/contract';
import { formatAge, formatPercent } from '../lib/format';

export type Freshness = 'fresh' | 'stale' | 'syncing' | 'error' | 'offline';

/** Older than this, a successful sync counts as stale. */
const STALE_AFTER_MS = 60 * 60 * 1000;

export function freshness(store: StoreSummary, now: number): Freshness {
  const { state, lastOutcome, lastSyncedAt } = store.sync;
  if (state === 'syncing') return 'syncing';
  if (state === 'error' || lastOutcome === 'error') return 'error';
  if (state === 'offline' || lastOutcome === 'offline') return 'offline';
  if (lastSyncedAt === null) return 'stale';
  return now - new Date(lastSyncedAt).getTime() > STALE_AFTER_MS ? 'stale' : 'fresh';
}

export const FRESHNESS_LABEL: Record<Freshness, string> = {
  fresh: 'Up to date',
  stale: 'Not synced recently',
  syncing: 'Syncing',
  error: 'Last sync failed',
  offline: 'Offline',
};

/** The short text beside a store: its progress while syncing, else the time since its last sync. */
export function syncAge(store: StoreSummary, now: number): string {
  const { state, progress, lastSyncedAt } = store.sync;
  if (state === 'syncing') {
    if (progress?.total) return formatPercent((progress.done / progress.total) * 100, 0);
    return '…';
  }
  return lastSyncedAt === null ? 'never' : formatAge(lastSyncedAt, now);
}
