// Migration 6: the request rate each store's API was measured to allow. Frozen: never edited once released.
import type { Migration } from './migration';

/** v6: a sync starts at the pace the last one learnt, instead of cold (see stores/registry.ts). */
const SQL = `ALTER TABLE stores ADD COLUMN learned_rate REAL;`;

export const migration006: Migration = { version: 6, up: (db) => db.exec(SQL) };
