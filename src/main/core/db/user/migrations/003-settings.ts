// User-data migration 3: the user's settings, one row per setting. Frozen once released.
import type { Migration } from '../../cache/migrations';

/**
 * Keyed by the setting's name with its value as JSON, so a new setting needs no new migration; a
 * value this version cannot read falls back to the default (core/db/settings.ts).
 */
const SQL = `
CREATE TABLE user.settings (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT, WITHOUT ROWID;
`;

export const userMigration003: Migration = { version: 3, up: (db) => db.exec(SQL) };
