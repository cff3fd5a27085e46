// The cache's schema as numbered migrations, one file each, recorded in PRAGMA user_version and
// applied in one transaction. A released migration is never edited: a change is a new file at the end.
import { problem } from '#shared/problem';
import { statement } from '../../statements';
import type { Db } from '../../types';
import type { Migration } from './migration';
import { migration001 } from './001-core';
import { migration002 } from './002-set-aside-and-search';
import { migration003 } from './003-tier-on-tests';
import { migration004 } from './004-drop-unread-tables';
import { migration005 } from './005-compress-raw-results';
import { migration006 } from './006-learned-rate';
import { migration007 } from './007-alerts-on-tests';
import { migration008 } from './008-key-journal';
import { migration009 } from './009-set-aside-kinds';
import { migration010 } from './010-leader-on-tests';
import { migration011 } from './011-facet-counts';
import { migration012 } from './012-slim-sort-indexes';
import { migration013 } from './013-decisions';
import { migration014 } from './014-decision-basis';
import { migration015 } from './015-decision-facts';
import { migration016 } from './016-decision-lines-index';
import { migration017 } from './017-test-titles-index';
import { migration018 } from './018-review-parts';
import { migration019 } from './019-paused-call';
import { migration020 } from './020-pack-fact-days';
import { migration021 } from './021-pack-calls';
import { migration022 } from './022-pack-test-records';

export type { Migration } from './migration';

export const MIGRATIONS: readonly Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004,
  migration005,
  migration006,
  migration007,
  migration008,
  migration009,
  migration010,
  migration011,
  migration012,
  migration013,
  migration014,
  migration015,
  migration016,
  migration017,
  migration018,
  migration019,
  migration020,
  migration021,
  migration022,
];

/** The schema an attached file lives under: the cache is `main`, the user's own data `user`. */
export type SchemaName = 'main' | 'user';

export function schemaVersion(db: Db, schema: SchemaName = 'main'): number {
  // A cached statement: db.pragma prepares anew at every call, and the decision reads ask per results write.
  const row = statement<{ user_version: unknown }>(db, `PRAGMA ${schema}.user_version`).get();
  return typeof row?.user_version === 'number' ? row.user_version : 0;
}

/**
 * Brings the schema up to the newest of `migrations`, all pending steps in one
 * transaction (a failing step leaves the file as it was). Refuses a cache written
 * by a newer Splitbook rather than guess at a schema it does not know. The version is
 * read inside the (immediate) transaction, so two processes opening one file at once
 * cannot both migrate it.
 */
export function migrate(
  db: Db,
  migrations: readonly Migration[] = MIGRATIONS,
  schema: SchemaName = 'main',
): { from: number; to: number } {
  assertOrdered(migrations);
  const newest = migrations.at(-1)?.version ?? 0;
  return db
    .transaction(() => {
      const from = schemaVersion(db, schema);
      if (from > newest) throw newerCache(db.name, from, newest);
      const pending = migrations.filter((m) => m.version > from);
      if (pending.length === 0) return { from, to: from };
      for (const migration of pending) migration.up(db);
      db.pragma(`${schema}.user_version = ${newest}`);
      return { from, to: newest };
    })
    .immediate();
}

function newerCache(file: string, version: number, newest: number) {
  return problem(
    'internal',
    409,
    'Cache from a newer Splitbook',
    `This cache was written by a newer version of Splitbook (schema ${version}, this version knows up to ${newest}). ` +
      `Update Splitbook, or move ${file} aside to start a fresh cache.`,
  );
}

function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (!Number.isInteger(m.version) || m.version !== i + 1) {
      throw new Error(
        `Migration ${i} has version ${m.version}; versions must be 1, 2, 3… in order`,
      );
    }
  });
}
