// The cache's stores table: a copy of the user file's list (db/user/stores.ts) that the cache's rows hang
// off, with how each store's last sync ended and the pace its API allowed. Never their keys.
import { StoreSummary, SyncOutcome } from '#shared/contract/index';
import { Problem } from '#shared/problem';
import { read, write } from '../sql';
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

type StoreKey = { id: string };

const INSERT_STORE = write<{
  id: string;
  name: string;
  baseUrl: string;
  kind: string;
  keyStorage: string;
  createdAt: string;
  position: number | null;
}>(`
  INSERT INTO stores (id, name, base_url, kind, key_storage, created_at, position)
  VALUES (@id, @name, @baseUrl, @kind, @keyStorage, @createdAt,
          coalesce(@position, (SELECT coalesce(max(position), -1) + 1 FROM stores)))`);
const SELECT_STORE = read<StoreDbRow, StoreKey>(`SELECT * FROM stores WHERE id = @id`);
const SELECT_STORES = read<StoreDbRow>(`SELECT * FROM stores ORDER BY position, created_at, id`);
// None of the patchable fields is nullable, so null means "leave as it is".
const UPDATE_STORE = write<{
  id: string;
  name: string | null;
  baseUrl: string | null;
  keyStorage: string | null;
  position: number | null;
}>(`
  UPDATE stores SET
    name = coalesce(@name, name),
    base_url = coalesce(@baseUrl, base_url),
    key_storage = coalesce(@keyStorage, key_storage),
    position = coalesce(@position, position)
  WHERE id = @id`);
const DELETE_STORE = write<StoreKey>(`DELETE FROM stores WHERE id = @id`);
const RECORD_OUTCOME = write<{
  id: string;
  outcome: string;
  problem: string | null;
  finishedAt: string;
  lastSyncedAt: string | null;
}>(`
  UPDATE stores SET
    last_outcome = @outcome, last_problem_json = @problem, last_finished_at = @finishedAt,
    last_synced_at = coalesce(@lastSyncedAt, last_synced_at)
  WHERE id = @id`);
const COUNT_STORE = read<StoreCounts, StoreKey>(`
  SELECT
    (SELECT count(*) FROM tests WHERE store_id = @id AND removed = 0) AS tests,
    (SELECT count(*) FROM tests WHERE store_id = @id AND removed = 1) AS removed,
    (SELECT count(*) FROM set_aside WHERE store_id = @id) AS setAside`);
const STORE_HOLDING_ANY = read<{ id: string; name: string }, { exceptId: string; testIds: string }>(
  `SELECT s.id, s.name FROM stores s
   WHERE s.id != @exceptId AND EXISTS (SELECT 1 FROM tests t
     WHERE t.store_id = s.id AND t.id IN (SELECT value FROM json_each(@testIds)))
   ORDER BY s.position, s.id LIMIT 1`,
);
const CACHED_TEST_IDS = read<{ id: string }, { storeId: string }>(
  `SELECT id FROM tests WHERE store_id = @storeId`,
);
const CLEAR_UNREACHABLE = write<StoreKey>(
  `UPDATE stores SET last_outcome = NULL, last_problem_json = NULL
   WHERE id = @id AND last_outcome = 'offline'`,
);
const SAVE_LEARNED_RATE = write<{ id: string; rate: number }>(
  `UPDATE stores SET learned_rate = @rate WHERE id = @id`,
);
const STORES_SYNCED_AT = read<
  { id: string; name: string; lastSyncedAt: string | null },
  { storeId: string | null }
>(
  `SELECT id, name, last_synced_at AS lastSyncedAt FROM stores WHERE @storeId IS NULL OR id = @storeId`,
);
const STORE_NAMES = read<{ id: string; name: string }, { storeId: string | null }>(
  `SELECT id, name FROM stores WHERE @storeId IS NULL OR id = @storeId ORDER BY position, id`,
);
const STORES_FINGERPRINT = read<{ f: string }>(
  `SELECT coalesce(group_concat(id || char(31) || name || char(31) || base_url || char(31) ||
          key_storage || char(31) || position, char(30)), '') AS f
   FROM (SELECT * FROM stores ORDER BY id)`,
);

// The copy made from the user's list: what the user made of each store copied, a row written only when
// it differs (so another process's watch sees no change where there is none).
const DELETE_UNLISTED = write(
  `DELETE FROM main.stores WHERE id NOT IN (SELECT id FROM user.stores)`,
);
const COPY_LISTED = write(`
  INSERT INTO main.stores (id, name, base_url, kind, key_storage, created_at, position)
  SELECT id, name, base_url, kind, key_storage, created_at, position FROM user.stores WHERE true
  ON CONFLICT (id) DO UPDATE SET
    name = excluded.name, base_url = excluded.base_url, kind = excluded.kind,
    key_storage = excluded.key_storage, created_at = excluded.created_at, position = excluded.position
  WHERE stores.name IS NOT excluded.name OR stores.base_url IS NOT excluded.base_url
     OR stores.kind IS NOT excluded.kind OR stores.key_storage IS NOT excluded.key_storage
     OR stores.created_at IS NOT excluded.created_at OR stores.position IS NOT excluded.position`);

/**
 * Adds a store; without a position it goes last. With the user's file attached it is listed there too,
 * in the same transaction: the list is the user's, the cache's row its copy.
 */
export function insertStore(db: Db, store: NewStore): StoreRow {
  return db
    .transaction(() => {
      INSERT_STORE.run(db, {
        id: store.id,
        name: store.name,
        baseUrl: store.baseUrl,
        kind: store.kind,
        keyStorage: store.keyStorage,
        createdAt: store.createdAt,
        position: store.position ?? null,
      });
      const row = getStoreRow(db, store.id);
      if (!row) throw new Error(`Store ${store.id} vanished right after it was inserted`);
      if (hasStoreList(db)) saveListedStore(db, row);
      return row;
    })
    .immediate();
}

/** Changes the given fields (in the user's list too); returns the updated store, or null when there is none. */
export function updateStore(db: Db, id: string, patch: StorePatch): StoreRow | null {
  return db
    .transaction(() => {
      UPDATE_STORE.run(db, {
        id,
        name: patch.name ?? null,
        baseUrl: patch.baseUrl ?? null,
        keyStorage: patch.keyStorage ?? null,
        position: patch.position ?? null,
      });
      if (hasStoreList(db)) updateListedStore(db, id, patch);
      return getStoreRow(db, id);
    })
    .immediate();
}

/** Deletes a store from the user's list and, by cascade, everything cached for it (search index included). */
export function deleteStore(db: Db, id: string): boolean {
  return db
    .transaction(() => {
      if (hasStoreList(db)) deleteListedStore(db, id);
      return DELETE_STORE.run(db, { id }).changes > 0;
    })
    .immediate();
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
    DELETE_UNLISTED.run(db);
    COPY_LISTED.run(db);
  }).immediate();
}

/**
 * Drops everything cached of a store but the store itself (name, place, key storage, creation): its key
 * now reads another store. The row goes and comes back in one transaction, so every table that hangs
 * off it empties by its foreign key, as a removal would, and the facet counts follow their triggers.
 */
export function resetStoreCache(db: Db, id: string): void {
  const row = SELECT_STORE.get(db, { id });
  if (!row) return;
  db.transaction(() => {
    DELETE_STORE.run(db, { id });
    INSERT_STORE.run(db, {
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
    STORE_HOLDING_ANY.get(db, { exceptId: exceptStoreId, testIds: JSON.stringify(testIds) }) ?? null
  );
}

/** Every cached test id of a store, removed ones included. */
export function cachedTestIds(db: Db, storeId: string): Set<string> {
  return new Set(CACHED_TEST_IDS.all(db, { storeId }).map((r) => r.id));
}

export function listStoreRows(db: Db): StoreRow[] {
  return SELECT_STORES.all(db).map(toStoreRow);
}

export function getStoreRow(db: Db, id: string): StoreRow | null {
  const row = SELECT_STORE.get(db, { id });
  return row ? toStoreRow(row) : null;
}

export function recordSyncOutcome(db: Db, storeId: string, record: SyncOutcomeRecord): void {
  RECORD_OUTCOME.run(db, {
    id: storeId,
    outcome: record.outcome,
    problem: record.problem ? JSON.stringify(record.problem) : null,
    finishedAt: record.finishedAt,
    lastSyncedAt: record.lastSyncedAt,
  });
}

/**
 * The store answered (an edit sent outside a run): a last run that could not reach it no longer says
 * what is true, so its outcome is cleared until the next run records one. True when it was cleared.
 */
export function clearUnreachable(db: Db, storeId: string): boolean {
  return CLEAR_UNREACHABLE.run(db, { id: storeId }).changes > 0;
}

/** Keeps the pace a store's API was measured to allow, for the next run to start at. */
export function saveLearnedRate(db: Db, storeId: string, ratePerSecond: number): void {
  SAVE_LEARNED_RATE.run(db, { id: storeId, rate: ratePerSecond });
}

/** Cached tests (not removed), removed tests, and set-aside records of a store. */
export function storeCounts(db: Db, storeId: string): StoreCounts {
  const counts = COUNT_STORE.get(db, { id: storeId });
  return counts ?? { tests: 0, removed: 0, setAside: 0 };
}

/** Each store in scope (one, or every store: null) with when it was last synced: what an export checks. */
export function storesSyncedAt(
  db: Db,
  storeId: string | null,
): { id: string; name: string; lastSyncedAt: string | null }[] {
  return STORES_SYNCED_AT.all(db, { storeId });
}

/** Each store in scope (one, or every store: null) by name, in the list's order. */
export function storeNames(db: Db, storeId: string | null): { id: string; name: string }[] {
  return STORE_NAMES.all(db, { storeId });
}

/**
 * What a window must redraw for, as one text: each store's id, name, base URL, key storage and place.
 * Another process's add, remove, rename, re-key or move changes it (stores/watch.ts).
 */
export function storesFingerprint(db: Db): string {
  return STORES_FINGERPRINT.get(db)?.f ?? '';
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
