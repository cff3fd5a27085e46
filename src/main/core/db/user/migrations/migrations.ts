// The user's own data (unsent edits, notes, review marks) as numbered migrations of the file attached
// as schema `user`. Frozen once released, like the cache's: a change is a new entry at the end.
// Every statement names its table `user.<name>`, since the file is attached to the cache's connection.
import type { Migration } from '../../cache/migrations';
import { userMigration001 } from './001-outbox';
import { userMigration002 } from './002-review-memory';
import { userMigration003 } from './003-settings';
import { userMigration004 } from './004-decisions';
import { userMigration005 } from './005-background-sync';
import { userMigration006 } from './006-takeaways';
import { userMigration007 } from './007-sent-edits';
import { userMigration008 } from './008-review-ends';
import { userMigration009 } from './009-change-nets';
import { userMigration010 } from './010-stores';
import { userMigration011 } from './011-decision-history';
import { userMigration012 } from './012-team';
import { userMigration013 } from './013-team-owners';

export const USER_DATA_MIGRATIONS: readonly Migration[] = [
  userMigration001,
  userMigration002,
  userMigration003,
  userMigration004,
  userMigration005,
  userMigration006,
  userMigration007,
  userMigration008,
  userMigration009,
  userMigration010,
  userMigration011,
  userMigration012,
  userMigration013,
];
