// Whether a connection has the user's own data file attached (schema `user`): bare caches in tools and benches do not.
import type { Db } from '../types';

const attached = new WeakMap<Db, boolean>();

export function hasUserData(db: Db): boolean {
  let known = attached.get(db);
  if (known === undefined) {
    known =
      db.prepare(`SELECT 1 FROM pragma_database_list WHERE name = 'user'`).get() !== undefined;
    attached.set(db, known);
  }
  return known;
}
