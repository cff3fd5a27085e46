// The stores the app knows, their sync state (kept current by sync events) and what the host can do.
import type { AppInfo, StoreSummary, SyncProgress, SyncReport } from '#shared/contract/index';
import type { Problem } from '#shared/problem';
import { api, toProblem } from '../lib/api';

class StoresState {
  list = $state.raw<StoreSummary[]>([]);
  loaded = $state(false);
  problem = $state.raw<Problem | null>(null);
  info = $state.raw<AppInfo | null>(null);
  /** The last finished sync per store, from events: it tells when an offline or failed attempt happened. */
  reports = $state.raw<Record<string, SyncReport>>({});

  async loadInfo() {
    try {
      this.info = await api.app.info({});
    } catch {
      // Without app info the add-store dialog simply assumes a keychain; the list shows host problems.
    }
  }

  async refresh() {
    try {
      const list = await api.stores.list({});
      // Keep live progress the list may not have caught up with yet.
      this.list = list.map((store) => {
        const known = this.byId(store.id);
        const progress =
          store.sync.progress ?? (known?.sync.state === 'syncing' ? known.sync.progress : null);
        return store.sync.state === 'syncing'
          ? { ...store, sync: { ...store.sync, progress } }
          : store;
      });
      this.problem = null;
    } catch (error) {
      this.problem = toProblem(error);
    } finally {
      this.loaded = true;
    }
  }

  byId(id: string | null): StoreSummary | null {
    return id === null ? null : (this.list.find((store) => store.id === id) ?? null);
  }

  applyProgress(progress: SyncProgress) {
    this.list = this.list.map((store) =>
      store.id === progress.storeId
        ? { ...store, sync: { ...store.sync, state: 'syncing', progress } }
        : store,
    );
  }

  applyReport(report: SyncReport) {
    this.reports = { ...this.reports, [report.storeId]: report };
    this.list = this.list.map((store) =>
      store.id === report.storeId && store.sync.state === 'syncing'
        ? {
            ...store,
            sync: {
              ...store.sync,
              state: report.outcome === 'offline' ? 'offline' : 'idle',
              progress: null,
            },
          }
        : store,
    );
  }

  /** Optimistic: a store shows as syncing the moment the user asks, before the first progress event. */
  markSyncing(storeId: string) {
    this.list = this.list.map((store) =>
      store.id === storeId && store.sync.state !== 'syncing'
        ? { ...store, sync: { ...store.sync, state: 'syncing', progress: null } }
        : store,
    );
  }

  upsert(store: StoreSummary) {
    const exists = this.list.some((s) => s.id === store.id);
    this.list = exists
      ? this.list.map((s) => (s.id === store.id ? store : s))
      : [...this.list, store];
  }
}

export const stores = new StoresState();
