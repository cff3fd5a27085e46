// The list of stores in the user's own file (user.stores): what the user added, under the ids all their
// data is keyed by. The cache's stores table is a copy of it (db/cache/stores.ts keeps the two alike).
import { schemaVersion } from '../cache/migrations';
import { read, write } from '../sql';
import type { Db, StorePatch, StoreRow } from '../types';
import { hasUserData } from './attached';

/** The user-data migration that made user.stores. */
const STORES_VERSION = 10;

/** A store as the user's file lists it: what the user made, nothing a sync learns. */
export type ListedStore = Pick<
  StoreRow,
  'id' | 'name' | 'baseUrl' | 'kind' | 'keyStorage' | 'createdAt' | 'position'
>;

/** Whether the user's file holds the list: bare caches, and an older file opened read-only, do not. */
export function hasStoreList(db: Db): boolean {
  return hasUserData(db) && schemaVersion(db, 'user') >= STORES_VERSION;
}

const LISTED_STORES = read<ListedStore>(
  `SELECT id, name, base_url AS baseUrl, kind, key_storage AS keyStorage,
          created_at AS createdAt, position
   FROM user.stores ORDER BY position, created_at, id`,
);
const SAVE_LISTED = write<ListedStore>(
  `INSERT INTO user.stores (id, name, base_url, kind, key_storage, created_at, position)
   VALUES (@id, @name, @baseUrl, @kind, @keyStorage, @createdAt, @position)
   ON CONFLICT (id) DO UPDATE SET name = excluded.name, base_url = excluded.base_url,
     kind = excluded.kind, key_storage = excluded.key_storage, created_at = excluded.created_at,
     position = excluded.position`,
);
const ADOPT_LISTED = write<ListedStore>(
  `INSERT INTO user.stores (id, name, base_url, kind, key_storage, created_at, position)
   VALUES (@id, @name, @baseUrl, @kind, @keyStorage, @createdAt, @position)
   ON CONFLICT (id) DO NOTHING`,
);
// None of the patchable fields is nullable, so null means "leave as it is".
const UPDATE_LISTED = write<{
  id: string;
  name: string | null;
  baseUrl: string | null;
  keyStorage: string | null;
  position: number | null;
}>(
  `UPDATE user.stores SET
     name = coalesce(@name, name),
     base_url = coalesce(@baseUrl, base_url),
     key_storage = coalesce(@keyStorage, key_storage),
     position = coalesce(@position, position)
   WHERE id = @id`,
);
const DELETE_LISTED = write<{ id: string }>(`DELETE FROM user.stores WHERE id = @id`);

export function listedStores(db: Db): ListedStore[] {
  if (!hasStoreList(db)) return [];
  return LISTED_STORES.all(db);
}

/** The columns of a listed store, from any store shape that has them. */
function listed(store: ListedStore): ListedStore {
  const { id, name, baseUrl, kind, keyStorage, createdAt, position } = store;
  return { id, name, baseUrl, kind, keyStorage, createdAt, position };
}

/** Lists a store, or writes it again as given when its id is listed already. */
export function saveListedStore(db: Db, store: ListedStore): void {
  SAVE_LISTED.run(db, listed(store));
}

/** Lists a store unless its id is listed already (an older file's list taken in). */
export function adoptListedStore(db: Db, store: ListedStore): void {
  ADOPT_LISTED.run(db, listed(store));
}

export function updateListedStore(db: Db, id: string, patch: StorePatch): void {
  UPDATE_LISTED.run(db, {
    id,
    name: patch.name ?? null,
    baseUrl: patch.baseUrl ?? null,
    keyStorage: patch.keyStorage ?? null,
    position: patch.position ?? null,
  });
}

export function deleteListedStore(db: Db, id: string): void {
  DELETE_LISTED.run(db, { id });
}
