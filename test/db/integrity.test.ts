// The cache's check off the start path: with integrityCheck 'background' a damaged cache opens at once
// (no quick_check before the first row), and the check on a thread of its own, after the window shows
// data, finds the damage and says so (cacheStatus corrupt, stores.changed). After a process that used
// the folder ended without closing, the check runs on open as before.
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { DATABASE_FILE } from '#core/create-core';
import { checkIntegrityInBackground, endedUncleanly, markRunning } from '#core/db/integrity';
import { createMemorySecretStore } from '#core/secrets/index';
import { allTestRows, nextSyncReport, startCore, syncStore, tempDir } from '../support/core';

let dir = tempDir();
afterEach(() => {
  dir.remove();
  dir = tempDir();
});

const start = (integrityCheck: 'on-open' | 'background') =>
  startCore(dir.path, {
    secrets: createMemorySecretStore(),
    demo: { tests: 20, seed: 4 },
    integrityCheck,
  });

async function syncedCache(): Promise<void> {
  const core = await start('on-open');
  const demo = await core.services.stores.openDemo({});
  await nextSyncReport(core, demo.id).catch(() => null);
  if ((await allTestRows(core, demo.id)).length < 20) await syncStore(core, demo.id);
  await core.close();
}

/**
 * Garbage over the pages of cached results (read when a test's results are opened, not on the way to
 * the first row), as a failing disk leaves them.
 */
function damage(file: string): void {
  const db = new Database(file);
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  const pages = db
    .prepare(
      `SELECT pageno FROM dbstat WHERE name = 'results_raw' AND pagetype IN ('leaf', 'overflow') ORDER BY pageno`,
    )
    .pluck()
    .all() as number[];
  db.close();
  const fd = openSync(file, 'r+');
  const junk = Buffer.alloc(pageSize, 0xa5);
  for (const page of pages.slice(0, 4)) writeSync(fd, junk, 0, junk.length, (page - 1) * pageSize);
  closeSync(fd);
}

it('a healthy cache passes the background check', async () => {
  await syncedCache();
  expect(await checkIntegrityInBackground(join(dir.path, DATABASE_FILE))).toEqual({ ok: true });
});

it('opens a damaged cache without checking it first, then finds the damage once the window shows data', async () => {
  await syncedCache();
  damage(join(dir.path, DATABASE_FILE));
  const core = await start('background');
  try {
    // Nothing checked on the way to the first row.
    expect((await core.services.app.cacheStatus({})).state).toBe('ok');
    const said = new Promise<void>((resolve) => {
      const off = core.subscribe((event) => {
        if (event.name === 'stores.changed') {
          off();
          resolve();
        }
      });
    });
    await core.services.app.windowReady({});
    await said;
    const status = await core.services.app.cacheStatus({});
    expect(status).toMatchObject({
      state: 'corrupt',
      problem: { type: 'splitbook:corrupt', title: 'The cache is damaged' },
    });
    expect(status.problem?.detail).toMatch(/quick_check|malformed|not a database/i);
  } finally {
    await core.close();
  }
});

it('checks on open after a process that used the folder ended without closing', async () => {
  await syncedCache();
  damage(join(dir.path, DATABASE_FILE));
  // A marker a dead process left behind (no process has this id).
  writeFileSync(join(dir.path, '.running-999999999.dead'), '');
  const core = await start('background');
  try {
    expect((await core.services.app.cacheStatus({})).state).toBe('corrupt');
  } finally {
    await core.close();
  }
});

it("a clean close leaves no marker; a live process's marker is not taken for a crash", () => {
  const unmark = markRunning(dir.path);
  expect(endedUncleanly(dir.path)).toBe(false);
  unmark();
  expect(endedUncleanly(dir.path)).toBe(false);
  writeFileSync(join(dir.path, '.running-999999999.dead'), '');
  expect(endedUncleanly(dir.path)).toBe(true);
  // The stale marker is gone once seen.
  expect(endedUncleanly(dir.path)).toBe(false);
});
