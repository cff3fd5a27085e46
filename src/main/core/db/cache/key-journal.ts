// Writes of the key journal: keychain accounts written for a store whose row is not (yet) in the cache.
import { statement } from '../statements';
import type { Db } from '../types';

export function journalKey(db: Db, account: string, createdAt: string): void {
  statement(db, `INSERT OR REPLACE INTO key_journal (account, created_at) VALUES (?, ?)`).run(
    account,
    createdAt,
  );
}

export function clearKeyJournal(db: Db, account: string): void {
  statement(db, `DELETE FROM key_journal WHERE account = ?`).run(account);
}

/** Journalled accounts that no store refers to: keys a failed or interrupted add left behind. */
export function orphanedKeyAccounts(db: Db): string[] {
  return statement<{ account: string }>(
    db,
    `SELECT account FROM key_journal WHERE account NOT IN (SELECT id FROM stores)`,
  )
    .all()
    .map((row) => row.account);
}
