// Where a store's sync stands: the run in progress (so an interrupted run resumes) and when each resource last synced.
import { SyncPhase } from '#shared/contract/index';
import { read, write } from '../sql';
import type { Db, ResourceSyncRow, SyncStateInput, SyncStateRow } from '../types';

type SyncStateDbRow = {
  run_id: string;
  phase: string;
  next_page: number | null;
  started_at: string;
  updated_at: string;
};

type StoreKey = { storeId: string };

const SELECT_STATE = read<SyncStateDbRow, StoreKey>(
  `SELECT run_id, phase, next_page, started_at, updated_at FROM sync_state WHERE store_id = @storeId`,
);
const SAVE_STATE = write<{
  storeId: string;
  runId: string;
  phase: string;
  nextPage: number | null;
  startedAt: string;
  updatedAt: string;
}>(`
  INSERT INTO sync_state (store_id, run_id, phase, next_page, started_at, updated_at)
  VALUES (@storeId, @runId, @phase, @nextPage, @startedAt, @updatedAt)
  ON CONFLICT (store_id) DO UPDATE SET
    run_id = excluded.run_id, phase = excluded.phase, next_page = excluded.next_page,
    started_at = excluded.started_at, updated_at = excluded.updated_at`);
const DELETE_STATE = write<StoreKey>(`DELETE FROM sync_state WHERE store_id = @storeId`);
const MARK_RESOURCE_SYNCED = write<{ storeId: string; resource: string; at: string }>(`
  INSERT INTO resource_syncs (store_id, resource, synced_at) VALUES (@storeId, @resource, @at)
  ON CONFLICT (store_id, resource) DO UPDATE SET synced_at = excluded.synced_at`);
const SELECT_RESOURCE_SYNCS = read<ResourceSyncRow, StoreKey>(`
  SELECT resource, synced_at AS syncedAt FROM resource_syncs WHERE store_id = @storeId ORDER BY resource`);

/** The unfinished run of a store, or null. A phase this version does not know reads as no run. */
export function getSyncState(db: Db, storeId: string): SyncStateRow | null {
  const row = SELECT_STATE.get(db, { storeId });
  const phase = SyncPhase.safeParse(row?.phase).data;
  if (!row || !phase) return null;
  return {
    runId: row.run_id,
    phase,
    nextPage: row.next_page,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
  };
}

/** Records the run's place; `updatedAt` defaults to now (pass the core's clock for reproducible runs). */
export function saveSyncState(db: Db, storeId: string, state: SyncStateInput): void {
  SAVE_STATE.run(db, {
    storeId,
    runId: state.runId,
    phase: state.phase,
    nextPage: state.nextPage,
    startedAt: state.startedAt,
    updatedAt: state.updatedAt ?? new Date().toISOString(),
  });
}

/** The run is over (finished or abandoned): the next sync starts afresh. */
export function clearSyncState(db: Db, storeId: string): void {
  DELETE_STATE.run(db, { storeId });
}

export function markResourceSynced(db: Db, storeId: string, resource: SyncPhase, at: string): void {
  MARK_RESOURCE_SYNCED.run(db, { storeId, resource, at });
}

export function getResourceSyncs(db: Db, storeId: string): ResourceSyncRow[] {
  return SELECT_RESOURCE_SYNCS.all(db, { storeId });
}
