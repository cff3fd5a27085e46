import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import type { Migration } from './migration';

/**
 * v20: a test's days in results_facts (v15: thirteen float64 a day, mostly zero bytes) were the
 * second largest part of the cache, 2.9 kB a test of the scale bench's 17 kB. They are kept
 * Brotli-compressed (core/decisions/facts.ts packDays), about 3× smaller. Existing rows are converted
 * here, in the migration's transaction; the quality is written out rather than imported, so this
 * step stays as it was released.
 */
function up(db: Parameters<Migration['up']>[0]): void {
  const rows = db.prepare<[], { rowid: number; days: Uint8Array }>(
    `SELECT rowid, days FROM results_facts`,
  );
  const save = db.prepare(`UPDATE results_facts SET days = ? WHERE rowid = ?`);
  for (const row of rows.all()) {
    const packed = brotliCompressSync(row.days, {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 },
    });
    save.run(packed, row.rowid);
  }
}

export const migration020: Migration = { version: 20, up };
