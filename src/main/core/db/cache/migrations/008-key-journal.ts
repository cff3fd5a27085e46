// Migration 8: the journal of API keys being saved for a store that is not yet in the cache. Frozen once released.
import type { Migration } from './migration';

/**
 * v5: adding a store writes its account here first, then the key to the keychain, then the store
 * row (which clears the entry). An entry with no store at start-up is a key a failed or killed add
 * left behind: it is deleted from the keychain. Only accounts this data folder wrote are ever cleaned.
 */
const SQL = `
CREATE TABLE key_journal (
  account    TEXT PRIMARY KEY,
  created_at TEXT NOT NULL
) STRICT;
`;

export const migration008: Migration = { version: 8, up: (db) => db.exec(SQL) };
