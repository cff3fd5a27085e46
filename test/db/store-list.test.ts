// The store list lives in the user's file (issue 46, item 3): a user file of the layout before it (user-data
// migration 9, the list then only in the cache) is migrated with every row it held and takes the cache's
// list; from then on a lost cache keeps the stores and their ids, and the cache's copy follows the list.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { DATABASE_FILE, USER_DATA_FILE } from '#core/create-core';
import { MIGRATIONS, migrate } from '#core/db/cache/migrations/index';
import { copyStoreList, insertStore, listStoreRows } from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import { USER_DATA_MIGRATIONS } from '#core/db/user/migrations/migrations';
import { listedStores } from '#core/db/user/stores';
import { createMemorySecretStore } from '#core/secrets/index';
import { startCore, tempDir } from '../support/core';
import { tableRows } from '../backup/support';

let dir = tempDir();
afterEach(() => {
  dir.remove();
  dir = tempDir();
});

const ACME = 'c0ffee00-0000-4000-8000-00000000a001';
const NORDIC = 'c0ffee00-0000-4000-8000-00000000a002';
const TEST = '7e570000-0000-4000-8000-000000000001';
const AT = '2026-11-20T10:00:00.000Z';

/** A data folder as the release before the list moved wrote it: the cache's stores, user-data layout 9. */
function folderOfLayout9(): void {
  const db = new Database(join(dir.path, DATABASE_FILE));
  db.pragma('journal_mode = WAL');
  migrate(db, MIGRATIONS);
  db.prepare('ATTACH DATABASE ? AS user').run(join(dir.path, USER_DATA_FILE));
  db.pragma('user.journal_mode = WAL');
  migrate(db, USER_DATA_MIGRATIONS.slice(0, 9), 'user');
  for (const [id, name, position] of [
    [NORDIC, 'Nordic', 1],
    [ACME, 'Acme', 0],
  ] as const)
    insertStore(db, {
      id,
      name,
      baseUrl: `https://${name.toLowerCase()}.example.com/api/public/v1`,
      kind: 'api',
      keyStorage: 'session',
      createdAt: AT,
      position,
    });
  db.prepare(`INSERT INTO user.notes VALUES (?, ?, ?, ?)`).run(
    ACME,
    TEST,
    'Ask about the hero',
    AT,
  );
  db.prepare(`INSERT INTO user.takeaways VALUES (?, ?, ?, ?)`).run(ACME, TEST, 'Heroes matter', AT);
  db.prepare(
    `INSERT INTO user.store_annotations (store_id, day, label, created_at) VALUES (?, ?, ?, ?)`,
  ).run(NORDIC, '2026-11-01', 'Sale', AT);
  db.prepare(`INSERT INTO user.settings VALUES ('resultsFreshness', '"6h"', ?)`).run(AT);
  db.prepare(`INSERT INTO user.store_marks (store_id, reviewed_at) VALUES (?, ?)`).run(ACME, AT);
  db.prepare(
    `INSERT INTO user.outbox (store_id, kind, record_id, changes_json, base_json, created_at, updated_at)
     VALUES (?, 'tag', 'local-tag', '{"name":"Kept"}', '{}', ?, ?)`,
  ).run(ACME, AT, AT);
  // A create left by a store the list no longer has: nowhere to copy it to, and no reason to stop a start.
  db.prepare(
    `INSERT INTO user.outbox (store_id, kind, record_id, changes_json, base_json, created_at, updated_at)
     VALUES ('gone-store', 'tag', 'local-tag-2', '{"name":"Orphan"}', '{}', ?, ?)`,
  ).run(AT, AT);
  expect(Number(db.pragma('user.user_version', { simple: true }))).toBe(9);
  db.close();
}

it("migrates a user file of layout 9 keeping every row, takes the cache's list under the same ids, and keeps them when the cache is lost (an orphan create of a store no longer listed stopping no start)", async () => {
  folderOfLayout9();
  const user = join(dir.path, USER_DATA_FILE);
  const before = tableRows(user);

  const core = await startCore(dir.path, { secrets: createMemorySecretStore() });
  const listed = (await core.services.stores.list({})).map((s) => [s.id, s.name]);
  await core.close();
  expect(listed).toEqual([
    [ACME, 'Acme'],
    [NORDIC, 'Nordic'],
  ]);
  const after = tableRows(user);
  // Every table of layout 9 holds what it held; the new one holds the list.
  expect(Object.fromEntries(Object.keys(before).map((name) => [name, after[name]]))).toEqual(
    before,
  );
  expect((after['stores'] ?? []).map((row) => (row as { id: string }).id).sort()).toEqual([
    ACME,
    NORDIC,
  ]);

  for (const part of ['', '-wal', '-shm'])
    rmSync(join(dir.path, DATABASE_FILE + part), { force: true });
  const again = await startCore(dir.path, { secrets: createMemorySecretStore() });
  try {
    expect((await again.services.stores.list({})).map((s) => [s.id, s.name, s.keyStorage])).toEqual(
      [
        [ACME, 'Acme', 'session'],
        [NORDIC, 'Nordic', 'session'],
      ],
    );
    expect((await again.services.notes.get({ storeId: ACME, testId: TEST })).body).toBe(
      'Ask about the hero',
    );
    expect(
      (await again.services.notes.annotations({ storeId: NORDIC })).map((a) => a.label),
    ).toEqual(['Sale']);
    expect(
      (await again.services.edits.list({ storeId: ACME })).map((e) => [e.kind, e.state]),
    ).toEqual([['tag', 'queued']]);
  } finally {
    await again.close();
  }
});

it("writes a store's add, rename and removal to the list and the cache's copy alike, and the copy follows the list at open", () => {
  const db = openDatabase(join(dir.path, DATABASE_FILE), {
    userDataFile: join(dir.path, USER_DATA_FILE),
  });
  try {
    insertStore(db, {
      id: ACME,
      name: 'Acme',
      baseUrl: 'https://a.example.com',
      kind: 'api',
      keyStorage: 'keychain',
      createdAt: AT,
    });
    insertStore(db, {
      id: NORDIC,
      name: 'Nordic',
      baseUrl: 'https://n.example.com',
      kind: 'api',
      keyStorage: 'keychain',
      createdAt: AT,
    });
    const pick = (rows: { id: string; name: string; position: number }[]) =>
      rows.map((r) => [r.id, r.name, r.position]);
    expect(pick(listedStores(db))).toEqual(pick(listStoreRows(db)));
    // Another process changed the list (the cache's copy missed it): the copy follows at open.
    db.prepare(`UPDATE user.stores SET name = 'Acme EU' WHERE id = ?`).run(ACME);
    db.prepare(`DELETE FROM user.stores WHERE id = ?`).run(NORDIC);
    db.prepare(`INSERT INTO tags (store_id, id, name) VALUES (?, 'tag-1', 'Cached')`).run(NORDIC);
    copyStoreList(db);
    expect(pick(listStoreRows(db))).toEqual([[ACME, 'Acme EU', 0]]);
    // What was cached of a store no longer listed went with it.
    expect(db.prepare(`SELECT count(*) AS n FROM tags`).get()).toEqual({ n: 0 });
    // Alike, the copy writes nothing.
    const changes = db.prepare(`SELECT total_changes() AS n`).get() as { n: number };
    copyStoreList(db);
    expect(db.prepare(`SELECT total_changes() AS n`).get()).toEqual(changes);
  } finally {
    db.close();
  }
});
