// A damaged cache is detected (quick_check at open, the SQLITE_CORRUPT family everywhere), the app
// still starts and says so, and a rebuild from the store's server keeps every row of the user's own file.
import { closeSync, openSync, statSync, truncateSync, writeSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { DATABASE_FILE, USER_DATA_FILE } from '#core/create-core';
import { storageProblem } from '#core/db/storage-errors';
import { classifyFailure } from '#core/sync/outcome';
import { createMemorySecretStore } from '#core/secrets/index';
import { allTestRows, nextSyncReport, startCore, syncStore, tempDir } from '../support/core';

let dir = tempDir();
afterEach(() => {
  dir.remove();
  dir = tempDir();
});

const start = () =>
  startCore(dir.path, { secrets: createMemorySecretStore(), demo: { tests: 20, seed: 4 } });

/** A synced demo store, and a row of the user's own data in a table of the user's file. */
async function syncedCacheWithUserData(): Promise<string> {
  const core = await start();
  const demo = await core.services.stores.openDemo({});
  await nextSyncReport(core, demo.id).catch(() => null);
  if ((await allTestRows(core, demo.id)).length < 20) await syncStore(core, demo.id);
  await core.close();
  const user = new Database(join(dir.path, USER_DATA_FILE));
  user.exec(`CREATE TABLE corruption_probe (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`);
  user
    .prepare(`INSERT INTO corruption_probe (body) VALUES (?)`)
    .run('Ask the client about the hero test');
  user.close();
  return demo.id;
}

function userNotes(): string[] {
  const user = new Database(join(dir.path, USER_DATA_FILE), { readonly: true });
  const rows = user.prepare(`SELECT body FROM corruption_probe`).pluck().all() as string[];
  user.close();
  return rows;
}

/** Garbage over the second half of the cache's pages, as a failing disk leaves it. */
function damage(file: string): void {
  const size = statSync(file).size;
  const fd = openSync(file, 'r+');
  const junk = Buffer.alloc(size - Math.floor(size / 2), 0xa5);
  writeSync(fd, junk, 0, junk.length, Math.floor(size / 2));
  closeSync(fd);
}

it('starts on a damaged cache, says so, and a rebuild resyncs it without losing the user file', async () => {
  const storeId = await syncedCacheWithUserData();
  const file = join(dir.path, DATABASE_FILE);
  damage(file);

  const core = await start();
  const status = await core.services.app.cacheStatus({});
  expect(status).toMatchObject({ state: 'corrupt', problem: { type: 'splitbook:corrupt' } });
  expect(status.problem?.title).toBe('The cache is damaged');

  const finished = nextSyncReport(core, storeId);
  const { storesKept } = await core.services.app.rebuildCache({});
  expect(storesKept).toBe(1);
  expect((await finished).outcome).toBe('ok');
  expect(await core.services.app.cacheStatus({})).toEqual({
    state: 'ok',
    problem: null,
    notice: null,
  });
  expect(await allTestRows(core, storeId)).toHaveLength(20);
  await core.close();

  expect(userNotes()).toEqual(['Ask the client about the hero test']);
  const rebuilt = new Database(file, { readonly: true });
  expect(rebuilt.pragma('quick_check', { simple: true })).toBe('ok');
  rebuilt.close();
}, 60_000);

it('does not take an emptied cache file for a new one', async () => {
  await syncedCacheWithUserData();
  const file = join(dir.path, DATABASE_FILE);
  truncateSync(file, 0);
  rmSync(`${file}-wal`, { force: true });
  rmSync(`${file}-shm`, { force: true });
  const core = await start();
  expect((await core.services.app.cacheStatus({})).state).toBe('corrupt');
  await core.close();
  expect(userNotes()).toHaveLength(1);
});

it('still starts a truly new data folder with an empty cache', async () => {
  const core = await start();
  expect(await core.services.app.cacheStatus({})).toEqual({
    state: 'ok',
    problem: null,
    notice: null,
  });
  await core.close();
});

it('maps the SQLITE_CORRUPT family in one place, for syncs and every call alike', () => {
  for (const code of ['SQLITE_CORRUPT', 'SQLITE_CORRUPT_INDEX', 'SQLITE_NOTADB']) {
    const error = Object.assign(new Error('database disk image is malformed'), { code });
    expect(storageProblem(error)?.type).toBe('splitbook:corrupt');
    expect(classifyFailure(error).problem?.title).toBe('The cache is damaged');
  }
  const readOnly = Object.assign(new Error('attempt to write a readonly database'), {
    code: 'SQLITE_READONLY',
  });
  expect(classifyFailure(readOnly).problem?.title).toBe('The data folder cannot be written');
});
