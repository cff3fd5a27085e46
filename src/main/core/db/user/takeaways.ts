// Reads and writes of the user's one-line takeaway per concluded test (user file, like notes; never sent to the API).
import { schemaVersion } from '../cache/migrations';
import { noteKey } from './notes';
import { read, write } from '../sql';
import type { Db } from '../types';
import { hasUserData } from './attached';

/** The user-data migration that made user.takeaways. */
const TAKEAWAYS_VERSION = 6;

export type TakeawayRow = { storeId: string; testId: string; text: string; updatedAt: string };

type TestKey = { storeId: string; testId: string };

const DELETE_TAKEAWAY = write<TestKey>(
  `DELETE FROM user.takeaways WHERE store_id = @storeId AND test_id = @testId`,
);
const SAVE_TAKEAWAY = write<TestKey & { text: string; at: string }>(
  `INSERT INTO user.takeaways (store_id, test_id, text, updated_at) VALUES (@storeId, @testId, @text, @at)
   ON CONFLICT (store_id, test_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
);
const TAKEAWAYS_OF = read<TakeawayRow, { storeId: string | null }>(
  `SELECT store_id AS storeId, test_id AS testId, text, updated_at AS updatedAt
   FROM user.takeaways WHERE @storeId IS NULL OR store_id = @storeId`,
);

/** Whether the user's file has the table: bare caches, and an older file opened read-only, do not. */
export function hasTakeaways(db: Db): boolean {
  return hasUserData(db) && schemaVersion(db, 'user') >= TAKEAWAYS_VERSION;
}

/** Saves a takeaway; an empty (or blank) one is deleted rather than kept as an empty row. */
export function setTakeaway(
  db: Db,
  storeId: string,
  testId: string,
  text: string,
  at: string,
): void {
  if (text.trim() === '') {
    DELETE_TAKEAWAY.run(db, { storeId, testId });
    return;
  }
  SAVE_TAKEAWAY.run(db, { storeId, testId, text, at });
}

/** Every takeaway of a store (or all stores), keyed by noteKey(storeId, testId). */
export function takeawaysFor(db: Db, storeId: string | null = null): Map<string, TakeawayRow> {
  const out = new Map<string, TakeawayRow>();
  if (!hasTakeaways(db)) return out;
  for (const row of TAKEAWAYS_OF.all(db, { storeId }))
    out.set(noteKey(row.storeId, row.testId), row);
  return out;
}
