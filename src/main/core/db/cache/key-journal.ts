// Writes of the key journal: keychain accounts written for a store whose row is not (yet) in the cache.
import { read, write } from '../sql';
import type { Db } from '../types';

const JOURNAL_KEY = write<{ account: string; createdAt: string }>(
  `INSERT OR REPLACE INTO key_journal (account, created_at) VALUES (@account, @createdAt)`,
);
const CLEAR_KEY = write<{ account: string }>(`DELETE FROM key_journal WHERE account = @account`);
const ORPHANED_KEYS = read<{ account: string }>(
  `SELECT account FROM key_journal WHERE account NOT IN (SELECT id FROM stores)`,
);

export function journalKey(db: Db, account: string, createdAt: string): void {
  JOURNAL_KEY.run(db, { account, createdAt });
}

export function clearKeyJournal(db: Db, account: string): void {
  CLEAR_KEY.run(db, { account });
}

/** Journalled accounts that no store refers to: keys a failed or interrupted add left behind. */
export function orphanedKeyAccounts(db: Db): string[] {
  return ORPHANED_KEYS.all(db).map((row) => row.account);
}
