// User-data migration 10: the list of stores and their ids, moved from the cache into the user's file. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * stores: the stores the user added, as the user made them (name, address, where the key is kept, place
 * in the list) under the id everything else of theirs is keyed by (notes, the outbox, review memory,
 * settings). The cache keeps a copy its foreign keys hang off, rebuilt from this list at every start, and
 * what syncs learn (how the last one ended, the pace the API allowed): a lost cache keeps the stores.
 * A file migrated beside its cache takes the cache's list as it stands.
 */
const SQL = `
CREATE TABLE user.stores (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  base_url    TEXT NOT NULL,
  kind        TEXT NOT NULL CHECK (kind IN ('api', 'demo')),
  key_storage TEXT NOT NULL CHECK (key_storage IN ('keychain', 'session', 'none')),
  created_at  TEXT NOT NULL,
  position    INTEGER NOT NULL DEFAULT 0
) STRICT;
`;

const FROM_CACHE = `
INSERT INTO user.stores (id, name, base_url, kind, key_storage, created_at, position)
SELECT id, name, base_url, kind, key_storage, created_at, position FROM main.stores;
`;

export const userMigration010: Migration = {
  version: 10,
  up: (db) => {
    db.exec(SQL);
    // Attached to a cache (as the app opens it), the cache's list is taken; a file made on its own
    // (a restore's reference schema) has none to take.
    const cached = db
      .prepare(`SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'stores'`)
      .get();
    if (cached !== undefined) db.exec(FROM_CACHE);
  },
};
