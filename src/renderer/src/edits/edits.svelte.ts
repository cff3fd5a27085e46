// Unsent edits as the window sees them: counts per store and the records of the scope, kept current by
// `edits.changed` and each sync's end (the core itself sends what waits after an ok sync).
import type { EditCounts, PendingEdit } from '#shared/contract/index';
import type { Problem } from '#shared/problem';
import { api, toProblem } from '../lib/api';
import { getBridge } from '../lib/bridge';

class EditsState {
  counts = $state.raw<Record<string, EditCounts>>({});
  /** Every pending record of every store (the outbox is small: it holds only unsent work). */
  records = $state.raw<PendingEdit[]>([]);
  loaded = $state(false);
  problem = $state.raw<Problem | null>(null);
  /** Bumped on every change, so open forms re-read their test. */
  version = $state(0);

  async refresh() {
    try {
      const [counts, records] = await Promise.all([
        api.edits.counts({ storeId: null }),
        api.edits.list({ storeId: null }),
      ]);
      this.counts = Object.fromEntries(counts.map((c) => [c.storeId, c]));
      this.records = records;
      this.problem = null;
    } catch (error) {
      this.problem = toProblem(error);
    } finally {
      this.loaded = true;
      this.version += 1;
    }
  }

  /** Records not yet confirmed by the store: `pending` counts failed and conflicting ones already. */
  waiting(storeId: string | null): number {
    const all = Object.values(this.counts);
    return (storeId === null ? all : all.filter((c) => c.storeId === storeId)).reduce(
      (sum, c) => sum + c.pending,
      0,
    );
  }

  readOnly(storeId: string): string | null {
    return this.counts[storeId]?.readOnly ?? null;
  }

  recordOf(storeId: string, kind: PendingEdit['kind'], recordId: string): PendingEdit | null {
    return (
      this.records.find(
        (r) => r.storeId === storeId && r.kind === kind && r.recordId === recordId,
      ) ?? null
    );
  }

  /** Sends what waits in the stores given (the connection came back). */
  async push(storeIds: string[]) {
    for (const storeId of storeIds) {
      try {
        await api.edits.push({ storeId });
      } catch {
        // The push's outcome shows as each edit's state; a refusal here changes nothing the user can act on.
      }
    }
    await this.refresh();
  }
}

export const edits = new EditsState();

/** Subscribes to edit events and syncs' ends; returns the unsubscribe. */
export function followEditEvents(): () => void {
  const bridge = getBridge();
  void edits.refresh();
  const offs = [
    // The views showing the store's local copies reload through lib/changes.svelte.ts.
    bridge.on('edits.changed', () => void edits.refresh()),
    bridge.on('sync.finished', () => void edits.refresh()),
  ];
  return () => offs.forEach((off) => off());
}
