// Where a store's sync stands: the run in progress (so an interrupted run resumes) and when each resource last synced.
import { SyncPhase } from '#shared/contract/index';
import { statement } from '../statements';
import type { Db, ResourceSyncRow, SyncStateInput, SyncStateRow } from '../types';

type SyncStateDbRow = {
  run_id: string;
  phase: string;
  next_page: number | null;
  started_at: string;
  updated_at: string;
};

const SELECT_STATE = `SELECT run_id, phase, next_page, started_at, updated_at FROM sync_state WHERE store_id = ?`;
const SAVE_STATE = `
  INSERT INTO sync_state (store_id, run_id, phase, next_page, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (store_id) DO UPDATE SET
    run_id = excluded.run_id, phase = excluded.phase, next_page = excluded.next_page,
    started_at = excluded.started_at, updated_at = excluded.updated_at`;
const DELETE_STATE = `DELETE FROM sync_state WHERE store_id = ?`;
const MARK_RESOURCE_SYNCED = `
  INSERT INTO resource_syncs (store_id, resource, synced_at) VALUES (?, ?, ?)
  ON CONFLICT (store_id, resource) DO UPDATE SET synced_at = excluded.synced_at`;
const SELECT_RESOURCE_SYNCS = `
  SELECT resource, synced_at AS syncedAt FROM resource_syncs WHERE store_id = ? ORDER BY resource`;

/** The unfinished run of a store, or null. A phase this version does not know reads as no run. */
export function getSyncState(db: Db, storeId: string): SyncStateRow | null {
  const row = statement<SyncStateDbRow>(db, SELECT_STATE).get(storeId);
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
  statement(db, SAVE_STATE).run(
    storeId,
    state.runId,
    state.phase,
    state.nextPage,
    state.startedAt,
    state.updatedAt ?? new Date().toISOString(),
  );
}

/** The run is over (finished or abandoned): the next sync starts afresh. */
export function clearSyncState(db: Db, storeId: string): void {
  statement(db, DELETE_STATE).run(storeId);
}

export function markResourceSynced(db: Db, storeId: string, resource: SyncPhase, at: string): void {
  statement(db, MARK_RESOURCE_SYNCED).run(storeId, resource, at);
}

export function getResourceSyncs(db: Db, storeId: string): ResourceSyncRow[] {
  return statement<ResourceSyncRow>(db, SELECT_RESOURCE_SYNCS).all(storeId);
}
