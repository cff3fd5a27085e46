// Starting syncs and following them: actions for buttons and shortcuts, and the event wiring.
import type { Problem } from '#shared/problem';
import { api, toProblem } from '../lib/api';
import { getBridge } from '../lib/bridge';
import { changes } from '../lib/changes.svelte';
import { stores } from '../stores/stores.svelte';

class SyncActions {
  /** Why the last sync could not start; shown in the status bar with a retry. */
  startProblem = $state.raw<{ storeId: string | null; problem: Problem } | null>(null);

  async syncStore(storeId: string) {
    this.startProblem = null;
    stores.markSyncing(storeId);
    try {
      await api.sync.start({ storeId });
    } catch (error) {
      this.startProblem = { storeId, problem: toProblem(error) };
      await stores.refresh();
    }
  }

  async syncAll() {
    this.startProblem = null;
    for (const store of stores.list) stores.markSyncing(store.id);
    try {
      await api.sync.startAll({});
    } catch (error) {
      this.startProblem = { storeId: null, problem: toProblem(error) };
    }
    await stores.refresh();
  }

  retry() {
    const failed = this.startProblem;
    if (!failed) return;
    if (failed.storeId === null) void this.syncAll();
    else void this.syncStore(failed.storeId);
  }
}

export const sync = new SyncActions();

/** Subscribes to the host's events; returns the unsubscribe. */
export function followSyncEvents(): () => void {
  const bridge = getBridge();
  const offs = [
    bridge.on('sync.progress', (progress) => {
      stores.applyProgress(progress);
      // Tests appear in the list (and counts in the sidebar) while the first sync is still running.
      if (changes.record({ name: 'sync.progress', payload: progress })) void stores.refresh();
    }),
    // Views reload what the run wrote through lib/changes.svelte.ts; the store list at once.
    bridge.on('sync.finished', (report) => {
      stores.applyReport(report);
      void stores.refresh();
    }),
    // A run started: the store list shows it; the data has not changed yet (progress refreshes it).
    bridge.on('sync.started', () => void stores.refresh()),
    bridge.on('stores.changed', () => void stores.refresh()),
  ];
  return () => offs.forEach((off) => off());
}
