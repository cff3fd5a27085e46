// The cache's stores table: a copy of the user file's list (db/user/stores.ts) that the cache's rows hang
// off, with how each store's last sync ended and the pace its API allowed. Never their keys.
import { StoreSummary, SyncOutcome } from '#shared/contract/index';
import { Problem } from '#shared/problem';
import { statement } from '../statements';
import type { Db, NewStore, StoreCounts, StorePatch, StoreRow, SyncOutcomeRecord } from '../types';
import {
  deleteListedStore,
  hasStoreList,
  saveListedStore,
  updateListedStore,
} from '../user/stores';

type StoreDbRow = {
  id: string;
  name: string;
  base_url: string;
  kind: string;
  key_storage: string;
  created_at: string;
  last_synced_at: string | null;
  last_finished_at: string | null;
  last_outcome: string | null;
  last_problem_json: string | null;
  position: number;
  learned_rate: number | null;
};

const INSERT_STORE = `
  INSERT INTO stores (id, name, base_url, kind, key_storage, created_at, position)
  VALUES (@id, @name, @baseUrl, @kind, @keyStorage, @createdAt,
          coalesce(@position, (SELECT coalesce(max(position), -1) + 1 FROM stores)))`;
const SELECT_STORE = `SELECT * FROM stores WHERE id = ?`;
const SELECT_STORES = `SELECT * FROM stores ORDER BY position, created_at, id`;
// None of the patchable fields is nullable, so null means "leave as it is".
const UPDATE_STORE = `
  UPDATE stores SET
    name = coalesce(@name, name),
    base_url = coalesce(@baseUrl, base_url),
    key_storage = coalesce(@keyStorage, key_storage),
    position = coalesce(@position, position)
  WHERE id = @id`;
const DELETE_STORE = `DELETE FROM stores WHERE id = ?`;
const RECORD_OUTCOME = `
  UPDATE stores SET
    last_outcome = ?, last_problem_json = ?, last_finished_at = ?,
    last_synced_at = coalesce(?, last_synced_at)
  WHERE id = ?`;
const COUNT_STORE = `
  SELECT
    (SELECT count(*) FROM tests WHERE store_id = @id AND removed = 0) AS tests,
    (SELECT count(*) FROM tests WHERE store_id = @id AND removed = 1) AS removed,
    (SELECT count(*) FROM set_aside WHERE store_id = @id) AS setAside`;

// The copy made from the user's list: what the user made of each store copied, a row written only when
// it differs (so another process's watch sees no change where there is none).
const DELETE_UNLISTED = `DELETE FROM main.stores WHERE id NOT IN (SELECT id FROM user.stores)`;
const COPY_LISTED = `
  INSERT INTO main.stores (id, name, base_url, kind, key_storage, created_at, position)
  SELECT id, name, base_url, kind, key_storage, created_at, position FROM user.stores WHERE true
  ON CONFLICT (id) DO UPDATE SET
    name = excluded.name, base_url = excluded.base_url, kind = excluded.kind,
    key_storage = excluded.key_storage, created_at = excluded.created_at, position = excluded.position
  WHERE stores.name IS NOT excluded.name OR stores.base_url IS NOT excluded.base_url
     OR stores.kind IS NOT excluded.kind OR stores.key_storage IS NOT excluded.key_storage
     OR stores.created_at IS NOT excluded.created_at OR stores.position IS NOT excluded.position`;

/**
 * Adds a store; without a position it goes last. With the user's file attached it is listed there too,
 * in the same transaction: the list is the user's, the cache's row its copy.
 */
export function insertStore(db: Db, store: NewStore): StoreRow {
  return db.transaction(() => {
    statement(db, INSERT_STORE).run({ ...store, position: store.position ?? null });
    const row = getStoreRow(db, store.id);
    if (!row) throw new Error(`Store ${store.id} vanished right after it was inserted`);
    if (hasStoreList(db)) saveListedStore(db, row);
    return row;
  }).immediate();
}

/** Changes the given fields (in the user's list too); returns the updated store, or null when there is none. */
export function updateStore(db: Db, id: string, patch: StorePatch): StoreRow | null {
  return db.transaction(() => {
    statement(db, UPDATE_STORE).run({
      id,
      name: patch.name ?? null,
      baseUrl: patch.baseUrl ?? null,
      keyStorage: patch.keyStorage ?? null,
      position: patch.position ?? null,
    });
    if (hasStoreList(db)) updateListedStore(db, id, patch);
    return getStoreRow(db, id);
  }).immediate();
}

/** Deletes a store from the user's list and, by cascade, everything cached for it (search index included). */
export function deleteStore(db: Db, id: string): boolean {
  return db.transaction(() => {
    if (hasStoreList(db)) deleteListedStore(db, id);
    return statement(db, DELETE_STORE).run(id).changes > 0;
  }).immediate();
}

/**
 * Makes the cache's stores those the user's file lists, at every start and after a rebuild or restore:
 * missing ones inserted (their sync state starts afresh), what the user made of each copied, and ones the
 * list no longer has deleted with everything cached of them. Nothing is written when the two agree. A
 * cache without the user's list (a bare cache, an older file opened read-only) is left as it is.
 */
export function copyStoreList(db: Db): void {
  if (!hasStoreList(db)) return;
  db.transaction(() => {
    statement(db, DELETE_UNLISTED).run();
    statement(db, COPY_LISTED).run();
  }).immediate();
}

/**
 * Drops everything cached of a store but the store itself (name, place, key storage, creation): its key
 * now reads another store. The row goes and comes back in one transaction, so every table that hangs
 * off it empties by its foreign key, as a removal would, and the facet counts follow their triggers.
 */
export function resetStoreCache(db: Db, id: string): void {
  const row = statement<StoreDbRow>(db, SELECT_STORE).get(id);
  if (!row) return;
  db.transaction(() => {
    statement(db, DELETE_STORE).run(id);
    statement(db, INSERT_STORE).run({
      id,
      name: row.name,
      baseUrl: row.base_url,
      kind: row.kind,
      keyStorage: row.key_storage,
      createdAt: row.created_at,
      position: row.position,
    });
  }).immediate();
}

/** The first other store (in the list's order) with any of these tests cached: whose tests a key lists. */
export function storeHoldingAny(
  db: Db,
  testIds: readonly string[],
  exceptStoreId: string,
): { id: string; name: string } | null {
  if (testIds.length === 0) return null;
  return (
    statement<{ id: string; name: string }>(
      db,
      `SELECT s.id, s.name FROM stores s
       WHERE s.id != ? AND EXISTS (SELECT 1 FROM tests t
         WHERE t.store_id = s.id AND t.id IN (SELECT value FROM json_each(?)))
       ORDER BY s.position, s.id LIMIT 1`,
    ).get(exceptStoreId, JSON.stringify(testIds)) ?? null
  );
}

/** Every cached test id of a store, removed ones included. */
export function cachedTestIds(db: Db, storeId: string): Set<string> {
  return new Set(
    statement<{ id: string }>(db, `SELECT id FROM tests WHERE store_id = ?`)
      .all(storeId)
      .map((r) => r.id),
  );
}

export function listStoreRows(db: Db): StoreRow[] {
  return statement<StoreDbRow>(db, SELECT_STORES).all().map(toStoreRow);
}

export function getStoreRow(db: Db, id: string): StoreRow | null {
  const row = statement<StoreDbRow>(db, SELECT_STORE).get(id);
  return row ? toStoreRow(row) : null;
}

export function recordSyncOutcome(db: Db, storeId: string, record: SyncOutcomeRecord): void {
  statement(db, RECORD_OUTCOME).run(
    record.outcome,
    record.problem ? JSON.stringify(record.problem) : null,
    record.finishedAt,
    record.lastSyncedAt,
    storeId,
  );
}

/**
 * The store answered (an edit sent outside a run): a last run that could not reach it no longer says
 * what is true, so its outcome is cleared until the next run records one. True when it was cleared.
 */
export function clearUnreachable(db: Db, storeId: string): boolean {
  return (
    statement(
      db,
      `UPDATE stores SET last_outcome = NULL, last_problem_json = NULL
       WHERE id = ? AND last_outcome = 'offline'`,
    ).run(storeId).changes > 0
  );
}

/** Keeps the pace a store's API was measured to allow, for the next run to start at. */
export function saveLearnedRate(db: Db, storeId: string, ratePerSecond: number): void {
  statement(db, `UPDATE stores SET learned_rate = ? WHERE id = ?`).run(ratePerSecond, storeId);
}

/** Cached tests (not removed), removed tests, and set-aside records of a store. */
export function storeCounts(db: Db, storeId: string): StoreCounts {
  const counts = statement<StoreCounts>(db, COUNT_STORE).get({ id: storeId });
  return counts ?? { tests: 0, removed: 0, setAside: 0 };
}

function toStoreRow(row: StoreDbRow): StoreRow {
  return {
    id: row.id,
    name: row.name,
    baseUrl: row.base_url,
    // The table's CHECK constraints hold these to the contract's values.
    kind: StoreSummary.shape.kind.parse(row.kind),
    keyStorage: StoreSummary.shape.keyStorage.parse(row.key_storage),
    createdAt: row.created_at,
    lastSyncedAt: row.last_synced_at,
    lastFinishedAt: row.last_finished_at,
    // An outcome or problem this version cannot read is shown as none rather than failing the list.
    lastOutcome: SyncOutcome.safeParse(row.last_outcome).data ?? null,
    lastProblem: parseProblem(row.last_problem_json),
    position: row.position,
    learnedRate: row.learned_rate,
  };
}

function parseProblem(json: string | null): Problem | null {
  if (json === null) return null;
  try {
    return Problem.safeParse(JSON.parse(json)).data ?? null;
  } catch {
    return null;
  }
}
