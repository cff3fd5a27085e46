// What a restore takes in (issue 46, items 6 and 10) on real files and the CLI as a user runs it: a backup
// carries a digest of its rows, checked before anything is replaced (a byte flipped inside a note, which
// SQLite's integrity check does not see, is refused); every table and row must be Splitbook's and within
// its limits (a note over the note limit, a foreign table, a trigger, an edit the API would not take are
// refused, the folder left as it was); a foreign table in the live file never rides along into a backup;
// and a backup of the format before (its own store list, no digest) still restores.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import type { StoreSummary } from '#shared/contract/index';
import { MAX_NOTE_LENGTH } from '#shared/contract/notes';
import { contentDigest } from '#core/backup/contents';
import { LABEL_TABLE } from '#core/backup/backup-file';
import { MIGRATIONS, migrate } from '#core/db/cache/migrations/index';
import { USER_DATA_MIGRATIONS } from '#core/db/user/migrations/migrations';
import { createMemorySecretStore } from '#core/secrets/index';
import { startCore } from '../support/core';
import { cli, folderContent, tableRows, tempRoot } from './support';

let sim: Simulator;
let served: ServedSimulator;
let root: ReturnType<typeof tempRoot>;

beforeEach(async () => {
  sim = createSimulator({ seed: 7, stores: [{ name: 'Acme', tests: 12 }] });
  served = await serveSimulator(sim, { port: 0 });
  root = tempRoot('splitbook-backup-contents-');
});
afterEach(async () => {
  await served.close();
  root.remove();
});

const NOTE = 'my precious note, kept only here';

/** A folder with a store, a note and a queued edit, and a backup of it. */
async function folderAndBackup(name: string) {
  const dir = join(root.path, name);
  const core = await startCore(dir, { secrets: createMemorySecretStore(), pushOnEdit: false });
  try {
    const store = await core.services.stores.add({
      name: 'Acme',
      baseUrl: served.url,
      apiKey: sim.stores[0]?.apiKey ?? '',
      sessionOnly: true,
    });
    const test = sim.snapshot('Acme').tests[0];
    if (!test) throw new Error('a test is needed');
    await core.services.notes.set({ storeId: store.id, testId: test.id, body: NOTE });
    await core.services.edits.createTag({ storeId: store.id, name: 'Queued' });
    const file = join(root.path, `${name}.backup`);
    await core.data.backup(file);
    return { dir, file, store, test };
  } finally {
    await core.close();
  }
}

/** A backup changed with SQL, its digest made again: what someone crafting one can do. */
function tamper(file: string, sql: string): void {
  const db = new Database(file);
  try {
    db.exec(sql);
    const version = Number(db.pragma('user_version', { simple: true }));
    db.prepare(`UPDATE ${LABEL_TABLE} SET digest = ?`).run(contentDigest(db, version));
  } finally {
    db.close();
  }
}

/** The folder's files and rows (SQLite's -wal and -shm aside: reading the files for the comparison makes them). */
function content(dir: string) {
  const { names, ...rows } = folderContent(dir);
  return { names: names.filter((name) => !/-(wal|shm)$/.test(name)), ...rows };
}

async function refused(dir: string, file: string, message: RegExp): Promise<void> {
  const before = content(dir);
  const run = await cli(dir, ['restore', file]);
  expect(run.out).toBe('');
  expect(run.code, run.err).toBe(1);
  expect(run.err.trim()).toMatch(message);
  expect(content(dir)).toEqual(before);
}

it("refuses a backup with a byte flipped inside a note, which passes SQLite's integrity check, saying so and changing nothing", async () => {
  const { dir, file } = await folderAndBackup('live');
  const bytes = readFileSync(file);
  const at = bytes.indexOf(Buffer.from(NOTE));
  expect(at).toBeGreaterThan(0);
  expect(bytes.indexOf(Buffer.from(NOTE), at + 1)).toBe(-1);
  bytes[at + 3] = 0x8f;
  writeFileSync(file, bytes);
  const db = new Database(file, { readonly: true });
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  db.close();

  await refused(
    dir,
    file,
    /^The backup is damaged: .*\.backup no longer holds what was written into it: its contents do not match the digest made with them .*Nothing was changed\.$/,
  );
});

it('refuses a note over the note limit, a foreign table, a trigger and an edit the store would not take, even with the digest made again, changing nothing', async () => {
  const { dir, file } = await folderAndBackup('live');
  const cases: [string, string, RegExp][] = [
    [
      'oversized',
      `UPDATE notes SET body = '${'x'.repeat(MAX_NOTE_LENGTH * 100)}'`,
      /^This backup cannot be restored: .* holds a note of 2,000,000 characters, where Splitbook keeps at most 20,000: Splitbook restores only what it makes itself\. Nothing was changed\.$/,
    ],
    [
      'foreign',
      `CREATE TABLE stolen (loot TEXT); INSERT INTO stolen VALUES ('${'y'.repeat(10_000)}')`,
      /^This backup cannot be restored: .* holds a table \(stolen\) that is not Splitbook's/,
    ],
    [
      'trigger',
      `CREATE TRIGGER sneaky AFTER INSERT ON notes BEGIN DELETE FROM outbox; END`,
      /^This backup cannot be restored: .* holds a trigger \(sneaky\) Splitbook never makes/,
    ],
    [
      'bad-edit',
      `UPDATE outbox SET changes_json = '{"name":"","extra":1}'`,
      /^This backup cannot be restored: .* holds an unsent tag edit the store would not take/,
    ],
    [
      'unreadable',
      `UPDATE outbox SET base_json = 'not json'`,
      /^This backup cannot be restored: .* holds 1 unreadable value\(s\) in outbox\.base_json/,
    ],
  ];
  for (const [name, sql, message] of cases) {
    const copy = join(root.path, `${name}.backup`);
    writeFileSync(copy, readFileSync(file));
    tamper(copy, sql);
    await refused(dir, copy, message);
  }
  // The backup as it was restores.
  const run = await cli(dir, ['restore', file]);
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
});

it('leaves a foreign table of the live user file out of a backup, its rows gone from the file, and the backup restores', async () => {
  const { dir, store, test } = await folderAndBackup('live');
  const user = new Database(join(dir, 'splitbook-user.db'));
  user.exec(
    `CREATE TABLE planted (secret TEXT); INSERT INTO planted VALUES ('planted-secret-${'z'.repeat(5000)}')`,
  );
  user.close();
  const file = join(root.path, 'again.backup');
  const made = await cli(dir, ['backup', '--out', file]);
  expect(made.err).toBe('');
  expect(Object.keys(tableRows(file))).not.toContain('planted');
  expect(readFileSync(file).includes(Buffer.from('planted-secret-'))).toBe(false);

  const fresh = join(root.path, 'fresh');
  const restored = await cli(fresh, ['restore', file]);
  expect(restored.err).toBe('');
  expect(restored.code).toBe(0);
  const core = await startCore(fresh, { secrets: createMemorySecretStore() });
  try {
    expect((await core.services.notes.get({ storeId: store.id, testId: test.id })).body).toBe(NOTE);
  } finally {
    await core.close();
  }
});

it('says a path that is not a regular file (a pipe, /dev/stdin, a folder) is not a backup file, changing nothing', async () => {
  const { dir } = await folderAndBackup('live');
  await refused(
    dir,
    '/dev/stdin',
    /^Not a backup file: \/dev\/stdin is not a regular file \(a device, a pipe or a socket, as \/dev\/stdin is\)/,
  );
  await refused(dir, '/dev/null', /^Not a backup file: \/dev\/null is not a regular file/);
  await refused(dir, root.path, /^Not a backup file: .* is a folder/);
});

it('restores a backup of the format before (the store list in a table of its own, user-data layout 9, no digest)', async () => {
  // Made as Splitbook wrote them before the list moved into the user's file.
  const source = join(root.path, 'old-user.db');
  const db = new Database(':memory:');
  migrate(db, MIGRATIONS);
  db.prepare('ATTACH DATABASE ? AS user').run(source);
  migrate(db, USER_DATA_MIGRATIONS.slice(0, 9), 'user');
  const storeId = 'c0ffee00-0000-4000-8000-00000000b001';
  db.prepare(
    `INSERT INTO user.notes VALUES (?, 'test-1', 'From the old days', '2026-10-01T00:00:00Z')`,
  ).run(storeId);
  db.close();
  const file = join(root.path, 'old.backup');
  const old = new Database(source);
  old.pragma('journal_mode = DELETE');
  old.exec(`
    CREATE TABLE splitbook_backup (format TEXT NOT NULL, format_version INTEGER NOT NULL, created_at TEXT NOT NULL,
      app_version TEXT NOT NULL, schema_version INTEGER NOT NULL) STRICT;
    CREATE TABLE splitbook_backup_stores (id TEXT PRIMARY KEY, name TEXT NOT NULL, base_url TEXT NOT NULL,
      kind TEXT NOT NULL, key_storage TEXT NOT NULL, created_at TEXT NOT NULL, position INTEGER NOT NULL) STRICT;
    INSERT INTO splitbook_backup VALUES ('splitbook-backup', 1, '2026-10-02T00:00:00Z', '0.0.9', 9);`);
  old
    .prepare(
      `INSERT INTO splitbook_backup_stores VALUES (?, 'Old store', 'https://old.example.com/api/public/v1', 'api', 'keychain', '2026-09-01T00:00:00Z', 0)`,
    )
    .run(storeId);
  old.close();
  writeFileSync(file, readFileSync(source));

  const dir = join(root.path, 'restored');
  const run = await cli(dir, ['restore', file]);
  expect(run.err).toBe('');
  expect(run.out).toContain('1 store (Old store)');
  const listed = await cli(dir, ['stores', '--json']);
  expect((JSON.parse(listed.out) as StoreSummary[]).map((s) => [s.id, s.name])).toEqual([
    [storeId, 'Old store'],
  ]);
  const core = await startCore(dir, { secrets: createMemorySecretStore() });
  try {
    expect((await core.services.notes.get({ storeId, testId: 'test-1' })).body).toBe(
      'From the old days',
    );
  } finally {
    await core.close();
  }

  // Its store list is held to the list's own rules: a name the app would never take is refused.
  const long = join(root.path, 'old-long-name.backup');
  writeFileSync(long, readFileSync(file));
  const edit = new Database(long);
  edit.prepare(`UPDATE splitbook_backup_stores SET name = ?`).run('N'.repeat(300));
  edit.close();
  await refused(
    dir,
    long,
    /^This backup cannot be restored: .* holds a store's name of 300 characters, where Splitbook keeps at most 100/,
  );
});
