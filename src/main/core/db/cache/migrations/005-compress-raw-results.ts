// Migration 5: the raw JSON of results, compressed. Frozen: a released migration is never edited.
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import type { Migration } from './migration';

/**
 * v5: a test's raw results (mostly the daily series) were 80% of the cache. They are kept whole (the
 * cache loses nothing the server sent) but Brotli-compressed, about 5× smaller. Existing rows are
 * converted here, in the migration's transaction; the compression settings are written out rather
 * than imported, so this step stays as it was released.
 */
function up(db: Parameters<Migration['up']>[0]): void {
  db.exec(`ALTER TABLE results_raw ADD COLUMN raw_packed BLOB`);
  const rows = db.prepare<[], { rowid: number; json: string }>(
    `SELECT rowid, raw_json AS json FROM results_raw`,
  );
  const save = db.prepare(`UPDATE results_raw SET raw_packed = ? WHERE rowid = ?`);
  for (const row of rows.all()) {
    const packed = brotliCompressSync(row.json, {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 4 },
    });
    save.run(packed, row.rowid);
  }
  db.exec(`ALTER TABLE results_raw DROP COLUMN raw_json`);
}

export const migration005: Migration = { version: 5, up };
