import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import type { Migration } from './migration';

/**
 * v22: each test's raw record (tests_raw, v1: its JSON as text, 1.5 kB a test of the scale bench) is
 * kept Brotli-compressed in tests_raw_packed, as the calls are since v21 (db/values.ts packText), about
 * 1 kB a test less. `tests_raw` becomes a view of it with the same columns (seq, raw_json, unpacked by
 * the cache's unpack_json), writable through INSTEAD OF triggers (pack_text), so every read of a
 * test's record in SQL stays as it was. Results records are laid out before they are packed from this
 * version on (db/record-text.ts): records packed before read the same and are replaced as their results
 * are written again, so nothing of results_raw is converted here; so are the facts' days (the text of
 * their columns: core/decisions/facts.ts packDays, which reads v20's float64 too). Existing records of tests_raw are
 * converted here, in the migration's transaction (the scale bench's 2,000 tests: 170 ms of CPU, the open included); the quality is written out
 * rather than imported, so this step stays as it was released.
 */
const SQL = `
CREATE TABLE tests_raw_packed (
  seq        INTEGER PRIMARY KEY REFERENCES tests (seq) ON DELETE CASCADE,
  raw_packed BLOB NOT NULL
) STRICT;
`;

const VIEW = `
DROP TABLE tests_raw;
CREATE VIEW tests_raw (seq, raw_json) AS
  SELECT seq, unpack_json(raw_packed) FROM tests_raw_packed;
CREATE TRIGGER tests_raw_insert INSTEAD OF INSERT ON tests_raw BEGIN
  INSERT OR REPLACE INTO tests_raw_packed (seq, raw_packed) VALUES (NEW.seq, pack_text(NEW.raw_json));
END;
CREATE TRIGGER tests_raw_update INSTEAD OF UPDATE ON tests_raw BEGIN
  UPDATE tests_raw_packed SET seq = NEW.seq, raw_packed = pack_text(NEW.raw_json) WHERE seq = OLD.seq;
END;
CREATE TRIGGER tests_raw_delete INSTEAD OF DELETE ON tests_raw BEGIN
  DELETE FROM tests_raw_packed WHERE seq = OLD.seq;
END;
`;

function up(db: Parameters<Migration['up']>[0]): void {
  db.exec(SQL);
  const rows = db.prepare<[], { seq: number; json: string }>(
    `SELECT seq, raw_json AS json FROM tests_raw`,
  );
  const save = db.prepare(`INSERT INTO tests_raw_packed (seq, raw_packed) VALUES (?, ?)`);
  for (const row of rows.all()) {
    const packed = brotliCompressSync(Buffer.from(row.json, 'utf8'), {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 },
    });
    save.run(row.seq, packed);
  }
  db.exec(VIEW);
}

export const migration022: Migration = { version: 22, up };
