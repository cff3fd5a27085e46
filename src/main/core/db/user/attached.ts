// Whether a connection has the user's own data file attached (schema `user`): bare caches in tools and benches do not.
import { read } from '../sql';
import type { Db } from '../types';

const attached = new WeakMap<Db, boolean>();

const USER_ATTACHED = read<{ 1: number }>(`SELECT 1 FROM pragma_database_list WHERE name = 'user'`);

export function hasUserData(db: Db): boolean {
  let known = attached.get(db);
  if (known === undefined) {
    known = USER_ATTACHED.get(db) !== undefined;
    attached.set(db, known);
  }
  return known;
}
