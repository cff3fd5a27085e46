// Reads and writes of the user's one-line takeaway per concluded test (user file, like notes; never sent to the API).
import { schemaVersion } from '../cache/migrations';
import { noteKey } from './notes';
import { statement } from '../statements';
import type { Db } from '../types';
import { hasUserData } from './attached';

/** The user-data migration that made user.takeaways. */
const TAKEAWAYS_VERSION = 6;

export type TakeawayRow = { storeId: string; testId: string; text: string; updatedAt: string };

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
    statement(db, `DELETE FROM user.takeaways WHERE store_id = ? AND test_id = ?`).run(
      storeId,
      testId,
    );
    return;
  }
  statement(
    db,
    `INSERT INTO user.takeaways (store_id, test_id, text, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (store_id, test_id) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
  ).run(storeId, testId, text, at);
}

/** Every takeaway of a store (or all stores), keyed by noteKey(storeId, testId). */
export function takeawaysFor(db: Db, storeId: string | null = null): Map<string, TakeawayRow> {
  const out = new Map<string, TakeawayRow>();
  if (!hasTakeaways(db)) return out;
  const rows = statement<TakeawayRow>(
    db,
    `SELECT store_id AS storeId, test_id AS testId, text, updated_at AS updatedAt
     FROM user.takeaways WHERE @storeId IS NULL OR store_id = @storeId`,
  ).all({ storeId });
  for (const row of rows) out.set(noteKey(row.storeId, row.testId), row);
  return out;
}
