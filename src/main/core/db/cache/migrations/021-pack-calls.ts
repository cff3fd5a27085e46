import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import type { Migration } from './migration';

/**
 * v21: each test's whole call in tests_decision (v13: its JSON text, 1.3 kB a test of the scale
 * bench) is kept Brotli-compressed, as results_raw keeps the results (db/values.ts packText, read in
 * SQL with unpack_json): about 0.9 kB a test less. The one figure read of it in SQL, the look's date
 * (the portfolio's "decided on"), gets a column of its own, so that read decompresses nothing. The
 * table is made anew (a STRICT column cannot change type) and existing rows converted here, in the
 * migration's transaction; the quality is written out rather than imported, so this step stays as it
 * was released.
 */
const SQL = `
CREATE TABLE tests_decision_packed (
  seq             INTEGER PRIMARY KEY REFERENCES tests (seq) ON DELETE CASCADE,
  decision_packed BLOB NOT NULL,
  look_date       TEXT
) STRICT;
`;

function up(db: Parameters<Migration['up']>[0]): void {
  db.exec(SQL);
  const rows = db.prepare<[], { seq: number; json: string; lookDate: unknown }>(
    `SELECT seq, decision_json AS json, json_extract(decision_json, '$.look.date') AS lookDate
     FROM tests_decision`,
  );
  const save = db.prepare(
    `INSERT INTO tests_decision_packed (seq, decision_packed, look_date) VALUES (?, ?, ?)`,
  );
  for (const row of rows.all()) {
    const packed = brotliCompressSync(Buffer.from(row.json, 'utf8'), {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 },
    });
    save.run(row.seq, packed, typeof row.lookDate === 'string' ? row.lookDate : null);
  }
  db.exec(`
    DROP TABLE tests_decision;
    ALTER TABLE tests_decision_packed RENAME TO tests_decision;`);
}

export const migration021: Migration = { version: 21, up };
