// A store's sync health as the user should read it: fresh, partial, stale, syncing, failed, or not reachable,
// and when "offline" may be said at all. Pure rules over the store summary, shared by the UI and its tests.
import type { StoreSummary } from '../contract';

export type Freshness = 'fresh' | 'partial' | 'stale' | 'syncing' | 'error' | 'offline';

/** Older than this, a successful sync counts as stale. */
const STALE_AFTER_MS = 60 * 60 * 1000;

export function freshness(store: StoreSummary, now: number): Freshness {
  const { state, lastOutcome, lastSyncedAt } = store.sync;
  if (state === 'syncing') return 'syncing';
  if (state === 'error' || lastOutcome === 'error') return 'error';
  if (state === 'offline' || lastOutcome === 'offline') return 'offline';
  if (lastSyncedAt === null) return 'stale';
  // A partial sync is never "up to date": some records could not be taken.
  if (lastOutcome === 'partial') return 'partial';
  return now - new Date(lastSyncedAt).getTime() > STALE_AFTER_MS ? 'stale' : 'fresh';
}

export const FRESHNESS_LABEL: Record<Freshness, string> = {
  fresh: 'Up to date',
  partial: 'Last sync partial: some records could not be taken',
  stale: 'Not synced recently',
  syncing: 'Syncing',
  error: 'Last sync failed',
  offline: "Can't be reached",
};

/** Stores whose last sync ran but could not take every record, with how many it set aside. */
export function partialStores(list: readonly StoreSummary[]): StoreSummary[] {
  return list.filter((s) => s.sync.state !== 'syncing' && s.sync.lastOutcome === 'partial');
}

/** A store whose last attempt could not reach its server (not syncing now). */
export function isUnreachable(store: StoreSummary): boolean {
  return (
    store.sync.state !== 'syncing' &&
    (store.sync.state === 'offline' || store.sync.lastOutcome === 'offline')
  );
}

/**
 * "Offline" is said only when no store could be reached: one store's server being down is that
 * store's problem ("Acme can't be reached"), not the network's. The in-process demo store needs no
 * network, so it does not count either way.
 */
export function allOffline(list: readonly StoreSummary[]): boolean {
  const remote = list.filter((s) => s.kind === 'api');
  return remote.length > 0 && remote.every(isUnreachable);
}
