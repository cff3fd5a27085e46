// The user file's copy of the team layer (user migration 12): the team joined, the links, and each team store's Yjs updates, compacted.
import * as Y from 'yjs';
import { schemaVersion } from '../cache/migrations';
import { read, write } from '../sql';
import type { Db } from '../types';
import { hasUserData } from './attached';

export type TeamRow = {
  url: string;
  member: string;
  tokenAccount: string;
  joinedAt: string;
  leftAt: string | null;
  lastExchangeAt: string | null;
};

export type LinkRow = { storeId: string; teamStoreId: string; syncedThrough: number };

export type UpdateOrigin = 'local' | 'remote';

/** Past this many rows a store's updates are merged into one (the ones the server holds). */
export const COMPACT_AFTER = 200;

const TEAM = read<TeamRow>(
  `SELECT url, member, token_account AS tokenAccount, joined_at AS joinedAt, left_at AS leftAt, last_exchange_at AS lastExchangeAt
   FROM user.team WHERE id = 1`,
);
const JOIN = write<{ url: string; member: string; account: string; at: string }>(
  `INSERT INTO user.team (id, url, member, token_account, joined_at) VALUES (1, @url, @member, @account, @at)
   ON CONFLICT (id) DO UPDATE SET url = excluded.url, member = excluded.member,
     token_account = excluded.token_account, joined_at = excluded.joined_at, left_at = NULL`,
);
const LEAVE = write<{ at: string }>(`UPDATE user.team SET left_at = @at WHERE id = 1`);
const EXCHANGED = write<{ at: string }>(`UPDATE user.team SET last_exchange_at = @at WHERE id = 1`);
const LINKS = read<LinkRow>(
  `SELECT store_id AS storeId, team_store_id AS teamStoreId, synced_through AS syncedThrough
   FROM user.team_links ORDER BY store_id`,
);
const LINK_OF_STORE = read<LinkRow, { storeId: string }>(
  `SELECT store_id AS storeId, team_store_id AS teamStoreId, synced_through AS syncedThrough
   FROM user.team_links WHERE store_id = @storeId`,
);
const LINK_OF_TEAM_STORE = read<LinkRow, { teamStoreId: string }>(
  `SELECT store_id AS storeId, team_store_id AS teamStoreId, synced_through AS syncedThrough
   FROM user.team_links WHERE team_store_id = @teamStoreId`,
);
const LINK = write<{ storeId: string; teamStoreId: string; at: string }>(
  `INSERT INTO user.team_links (store_id, team_store_id, linked_at) VALUES (@storeId, @teamStoreId, @at)`,
);
const UNLINK = write<{ storeId: string }>(`DELETE FROM user.team_links WHERE store_id = @storeId`);
const SYNCED_THROUGH = write<{ teamStoreId: string; id: number }>(
  `UPDATE user.team_links SET synced_through = max(synced_through, @id) WHERE team_store_id = @teamStoreId`,
);
const UPDATES = read<{ id: number; data: Uint8Array }, { teamStoreId: string }>(
  `SELECT id, data FROM user.team_updates WHERE team_store_id = @teamStoreId ORDER BY id`,
);
const ADD_UPDATE = write<{ teamStoreId: string; origin: string; data: Uint8Array }>(
  `INSERT INTO user.team_updates (team_store_id, origin, data) VALUES (@teamStoreId, @origin, @data)`,
);
const LAST_UPDATE = read<{ id: number | null }, { teamStoreId: string }>(
  `SELECT max(id) AS id FROM user.team_updates WHERE team_store_id = @teamStoreId`,
);
const WAITING = read<{ n: number }, { teamStoreId: string; after: number }>(
  `SELECT count(*) AS n FROM user.team_updates
   WHERE team_store_id = @teamStoreId AND origin = 'local' AND id > @after`,
);
const COUNT = read<{ n: number }, { teamStoreId: string }>(
  `SELECT count(*) AS n FROM user.team_updates WHERE team_store_id = @teamStoreId`,
);
const UPDATES_THROUGH = read<{ id: number; data: Uint8Array }, { teamStoreId: string; id: number }>(
  `SELECT id, data FROM user.team_updates WHERE team_store_id = @teamStoreId AND id <= @id ORDER BY id`,
);
const DROP_THROUGH = write<{ teamStoreId: string; id: number }>(
  `DELETE FROM user.team_updates WHERE team_store_id = @teamStoreId AND id <= @id`,
);
const PUT_MERGED = write<{ id: number; teamStoreId: string; data: Uint8Array }>(
  `INSERT INTO user.team_updates (id, team_store_id, origin, data) VALUES (@id, @teamStoreId, 'merged', @data)`,
);

/**
 * Whether the user file has the team tables (user migration 12): a file opened read-only, which is
 * never migrated, or a bare cache may not. Without them no team was joined and no store is linked.
 */
export const hasTeamData = (db: Db): boolean => hasUserData(db) && schemaVersion(db, 'user') >= 12;

export const teamRow = (db: Db): TeamRow | null =>
  hasTeamData(db) ? (TEAM.get(db) ?? null) : null;
export const saveJoin = (db: Db, url: string, member: string, account: string, at: string) =>
  void JOIN.run(db, { url, member, account, at });
export const saveLeave = (db: Db, at: string) => void LEAVE.run(db, { at });
export const saveExchange = (db: Db, at: string) => void EXCHANGED.run(db, { at });

export const links = (db: Db): LinkRow[] => (hasTeamData(db) ? LINKS.all(db) : []);
export const linkOfStore = (db: Db, storeId: string): LinkRow | null =>
  hasTeamData(db) ? (LINK_OF_STORE.get(db, { storeId }) ?? null) : null;
export const linkOfTeamStore = (db: Db, teamStoreId: string): LinkRow | null =>
  hasTeamData(db) ? (LINK_OF_TEAM_STORE.get(db, { teamStoreId }) ?? null) : null;
export const saveLink = (db: Db, storeId: string, teamStoreId: string, at: string) =>
  void LINK.run(db, { storeId, teamStoreId, at });
/** Forgets the link only: the document's updates stay (linking it again reads them). */
export const dropLink = (db: Db, storeId: string) => void UNLINK.run(db, { storeId });

/** The document as this desktop holds it: every update kept, applied in order. */
export function loadDoc(db: Db, teamStoreId: string, doc: Y.Doc, origin: unknown): void {
  const rows = UPDATES.all(db, { teamStoreId });
  if (rows.length === 0) return;
  Y.applyUpdate(doc, Y.mergeUpdates(rows.map((row) => row.data)), origin);
}

export function appendUpdate(
  db: Db,
  teamStoreId: string,
  origin: UpdateOrigin,
  data: Uint8Array,
): void {
  ADD_UPDATE.run(db, { teamStoreId, origin, data });
}

/** The server holds everything this desktop had up to now (a converged exchange). */
export function markSynced(db: Db, teamStoreId: string): void {
  const id = LAST_UPDATE.get(db, { teamStoreId })?.id ?? 0;
  SYNCED_THROUGH.run(db, { teamStoreId, id });
}

/** This desktop's updates the server has not confirmed. */
export function waitingUpdates(db: Db, link: LinkRow): number {
  return WAITING.get(db, { teamStoreId: link.teamStoreId, after: link.syncedThrough })?.n ?? 0;
}

/**
 * Merges the updates the server holds into one (under the last one's id), so the table grows with
 * the document, not with every keystroke; updates still waiting stay apart, counted as waiting.
 */
export function compact(db: Db, teamStoreId: string): void {
  if ((COUNT.get(db, { teamStoreId })?.n ?? 0) <= COMPACT_AFTER) return;
  db.transaction(() => {
    const link = linkOfTeamStore(db, teamStoreId);
    const through = link?.syncedThrough ?? 0;
    const rows = UPDATES_THROUGH.all(db, { teamStoreId, id: through });
    const last = rows.at(-1);
    if (rows.length < 2 || !last) return;
    const merged = Y.mergeUpdates(rows.map((row) => row.data));
    DROP_THROUGH.run(db, { teamStoreId, id: last.id });
    PUT_MERGED.run(db, { id: last.id, teamStoreId, data: merged });
  }).immediate();
}

const LAST_ID = read<{ id: number | null }>(`SELECT max(id) AS id FROM user.team_updates`);
const AFTER = read<{ id: number; teamStoreId: string; data: Uint8Array }, { after: number }>(
  `SELECT id, team_store_id AS teamStoreId, data FROM user.team_updates WHERE id > @after ORDER BY id`,
);

/** The last update row of every store (team/watch.ts polls it: one read of the table's index). */
export const lastUpdateId = (db: Db): number => LAST_ID.get(db)?.id ?? 0;

/** Every store's updates past `after`, in order. */
export const updatesAfter = (db: Db, after: number) => AFTER.all(db, { after });

const OWNERS_OF_STORE = read<{ testId: string; owner: string }, { storeId: string }>(
  `SELECT test_id AS testId, owner FROM user.team_owners WHERE store_id = @storeId`,
);
const PUT_OWNER = write<{ storeId: string; testId: string; owner: string }>(
  `INSERT INTO user.team_owners (store_id, test_id, owner) VALUES (@storeId, @testId, @owner)
   ON CONFLICT (store_id, test_id) DO UPDATE SET owner = excluded.owner`,
);
const DROP_OWNER = write<{ storeId: string; testId: string }>(
  `DELETE FROM user.team_owners WHERE store_id = @storeId AND test_id = @testId`,
);

/**
 * Makes the user file's copy of a shared store's owners what the layer says for `testIds` (all of
 * the store's when null): the "Mine" filter reads it in SQL. Rows already right are not written.
 */
export function copyOwners(
  db: Db,
  storeId: string,
  owners: ReadonlyMap<string, string>,
  testIds: Iterable<string> | null,
): void {
  const kept = new Map(OWNERS_OF_STORE.all(db, { storeId }).map((row) => [row.testId, row.owner]));
  const ids = testIds === null ? new Set([...kept.keys(), ...owners.keys()]) : new Set(testIds);
  db.transaction(() => {
    for (const testId of ids) {
      const owner = owners.get(testId);
      if (owner === kept.get(testId)) continue;
      if (owner === undefined) DROP_OWNER.run(db, { storeId, testId });
      else PUT_OWNER.run(db, { storeId, testId, owner });
    }
  }).immediate();
}

const SEEN_OF_STORE = read<{ testId: string; seenAt: string }, { storeId: string }>(
  `SELECT test_id AS testId, seen_at AS seenAt FROM user.team_comments_seen WHERE store_id = @storeId`,
);
const MARK_SEEN = write<{ storeId: string; testId: string; at: string }>(
  `INSERT INTO user.team_comments_seen (store_id, test_id, seen_at) VALUES (@storeId, @testId, @at)
   ON CONFLICT (store_id, test_id) DO UPDATE SET seen_at = excluded.seen_at`,
);

/** When this desktop last showed each test's comments, by test id. */
export const commentsSeen = (db: Db, storeId: string): Map<string, string> =>
  new Map(SEEN_OF_STORE.all(db, { storeId }).map((row) => [row.testId, row.seenAt]));

/** Notes that this desktop has shown a test's comments as of `at`. */
export function markCommentsSeen(db: Db, storeId: string, testId: string, at: string): void {
  MARK_SEEN.run(db, { storeId, testId, at });
}
