// Backup and restore (issue 23, item 5) on real parts: the app running in its own process (the browser
// host) while the CLI backs its folder up during a sync, the simulator over HTTP on loopback, SQLite files,
// the keychain of a private D-Bus session when the suite has one (npm test), and a process killed with
// SIGKILL. A backup holds everything the user made and never a key; a restore checks before it replaces.
import {
  readFileSync,
  writeFileSync,
  copyFileSync,
  openSync,
  writeSync,
  closeSync,
  statSync,
} from 'node:fs';
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
import { createMemorySecretStore } from '#core/secrets/index';
import { runCli } from '../../src/main/hosts/cli/run';
import { startCore, syncStore } from '../support/core';
import {
  cli,
  folderContent,
  folderNames,
  integrity,
  realKeyring,
  startApp,
  tableRows,
  tempRoot,
  type RunningApp,
} from './support';

let sim: Simulator;
let served: ServedSimulator;
let root: ReturnType<typeof tempRoot>;
const apps: RunningApp[] = [];

beforeEach(async () => {
  sim = createSimulator({
    seed: 11,
    stores: [
      { name: 'Acme', tests: 24 },
      { name: 'Nordic', tests: 60 },
    ],
  });
  served = await serveSimulator(sim, { port: 0 });
  root = tempRoot('splitbook-backup-');
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.kill('SIGKILL');
  await served.close();
  root.remove();
});

const keyOf = (name: string) => sim.stores.find((s) => s.name === name)?.apiKey ?? '';

async function running(dataDir: string): Promise<RunningApp> {
  const app = await startApp(dataDir, root.path);
  apps.push(app);
  return app;
}

async function addStore(app: RunningApp, name: string): Promise<StoreSummary> {
  return app.call<StoreSummary>('stores.add', {
    name,
    baseUrl: served.url,
    apiKey: keyOf(name),
    // Without a keychain here the key is kept for the app's session only.
    sessionOnly: !realKeyring,
  });
}

async function syncedIdle(app: RunningApp, storeId: string): Promise<void> {
  for (;;) {
    const stores = await app.call<StoreSummary[]>('stores.list', {});
    const store = stores.find((s) => s.id === storeId);
    if (store && store.sync.state !== 'syncing' && store.sync.lastSyncedAt) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A folder with a synced store and everything a user makes that the store does not hold. */
async function folderWithUserData(app: RunningApp) {
  const acme = await addStore(app, 'Acme');
  await app.call('sync.start', { storeId: acme.id });
  await syncedIdle(app, acme.id);
  const tests = sim.snapshot('Acme').tests;
  const launched = tests.filter((t) => ['active', 'paused'].includes(t.status));
  const [first, second] = launched;
  if (!first || !second) throw new Error('two launched tests needed');
  // Edits queued from the command line beside the running app wait in the outbox for a sync of Acme.
  const dataDir = app.dataDir;
  for (const args of [
    ['--test', first.id, '--set', 'title=Kept in the backup'],
    ['--test', second.id, '--set', 'priority=high', '--set', 'impact=5'],
  ]) {
    const queued = await cli(dataDir, ['edit', '--store', 'Acme', ...args]);
    if (queued.code !== 0) throw new Error(queued.err);
  }
  await app.call('notes.set', {
    storeId: acme.id,
    testId: first.id,
    body: 'Ask the client about the hero image',
  });
  await app.call('notes.addAnnotation', {
    storeId: acme.id,
    day: '2026-03-02',
    label: 'Spring sale',
  });
  await app.call('settings.set', { resultsFreshness: '6h' });
  await app.call('decisions.setSettings', { storeId: acme.id, patch: { minEffect: 0.08 } });
  await app.call('decisions.setPlan', { storeId: acme.id, testId: second.id, plannedDays: 21 });
  await app.call('programme.setTakeaway', {
    storeId: acme.id,
    testId: first.id,
    text: 'Hero images matter',
  });
  await app.call('review.markReviewed', { storeId: acme.id });
  return { acme, first, second };
}

it('backs up while the app runs and syncs, with no key inside; restored into a new folder it is all there and the next sync sends the edits', async () => {
  const dirA = join(root.path, 'a');
  const app = await running(dirA);
  const { acme, first, second } = await folderWithUserData(app);

  // Nordic's first sync (every test's results, each answer 2 s away) runs while the backup is made.
  const nordic = await addStore(app, 'Nordic');
  sim.setFaults({ latencyMs: 2000 });
  await app.call('sync.start', { storeId: nordic.id });
  const file = join(root.path, 'splitbook.backup');
  const made = await cli(dirA, ['backup', '--out', file]);
  const during = (await app.call<StoreSummary[]>('stores.list', {})).find(
    (s) => s.id === nordic.id,
  );
  expect(made.err).toBe('');
  expect(made.code).toBe(0);
  expect(during?.sync.state).toBe('syncing');
  expect(made.out).toContain(
    'Backed up 2 stores (Acme, Nordic), 2 unsent edits, 1 note, 1 annotation, 1 takeaway',
  );
  expect(integrity(file)).toBe('ok');
  // Keys stay in the keychain: not a byte of either is in the file.
  const bytes = readFileSync(file);
  for (const name of ['Acme', 'Nordic'])
    expect(bytes.includes(Buffer.from(keyOf(name)))).toBe(false);
  sim.setFaults({ latencyMs: 0 });
  await syncedIdle(app, nordic.id);
  await app.kill('SIGTERM');

  // A new computer: an empty folder.
  const dirB = join(root.path, 'b');
  const restored = await cli(dirB, ['restore', file]);
  expect(restored.err).toBe('');
  expect(restored.code).toBe(0);
  expect(restored.out).toContain('2 stores (Acme, Nordic), 2 unsent edits');
  expect(integrity(join(dirB, 'splitbook-user.db'))).toBe('ok');
  expect(integrity(join(dirB, 'splitbook.db'))).toBe('ok');
  // The user's file is the backup's, row for row (the backup's label aside).
  expect(tableRows(join(dirB, 'splitbook-user.db'))).toEqual(
    tableRows(file, ['splitbook_backup', 'splitbook_backup_stores']),
  );

  const core = await startCore(dirB, { secrets: createMemorySecretStore(), pushOnEdit: false });
  try {
    const stores = await core.services.stores.list({});
    expect(stores.map((s) => [s.id, s.name])).toEqual([
      [acme.id, 'Acme'],
      [nordic.id, 'Nordic'],
    ]);
    const pending = await core.services.edits.list({ storeId: acme.id });
    expect(
      pending.map((e) => [e.recordId, e.state, e.changes.map((c) => [c.field, c.mine])]),
    ).toEqual([
      [first.id, 'queued', [['title', 'Kept in the backup']]],
      [
        second.id,
        'queued',
        [
          ['priority', 'high'],
          ['impact', 5],
        ],
      ],
    ]);
    expect((await core.services.notes.get({ storeId: acme.id, testId: first.id })).body).toBe(
      'Ask the client about the hero image',
    );
    expect(
      (await core.services.notes.annotations({ storeId: acme.id })).map((a) => a.label),
    ).toEqual(['Spring sale']);
    expect((await core.services.settings.get({})).resultsFreshness).toBe('6h');
    expect((await core.services.decisions.settings({})).stores).toContainEqual(
      expect.objectContaining({
        storeId: acme.id,
        overrides: expect.objectContaining({ minEffect: 0.08 }),
      }),
    );
  } finally {
    await core.close();
  }

  // The next sync sends what waited; with the keychain, the restored store's key comes from there.
  if (realKeyring) {
    const synced = await cli(dirB, ['sync', '--store', 'Acme']);
    expect(synced.err).toBe('');
    expect(synced.out).toContain('2 edits sent, 0 failed');
  } else {
    const out: string[] = [];
    const code = await runCli(
      ['sync', '--store', 'Acme'],
      async () => {
        const opened = await startCore(dirB, { secrets: createMemorySecretStore() });
        await opened.services.stores.setKey({
          storeId: acme.id,
          apiKey: keyOf('Acme'),
          sessionOnly: true,
        });
        return opened;
      },
      { out: (l) => out.push(l), err: (l) => out.push(l) },
    );
    expect(code).toBe(0);
    expect(out.join('\n')).toContain('2 edits sent, 0 failed');
  }
  const server = sim.snapshot('Acme').tests;
  expect(server.find((t) => t.id === first.id)?.title).toBe('Kept in the backup');
  expect(server.find((t) => t.id === second.id)?.priority).toBe('high');
}, 180_000);

it('refuses a file that is not a backup, a damaged one and one from a newer Splitbook, changing nothing', async () => {
  const dir = join(root.path, 'live');
  const core = await startCore(dir, { secrets: createMemorySecretStore(), pushOnEdit: false });
  const store = await core.services.stores.add({
    name: 'Acme',
    baseUrl: served.url,
    apiKey: keyOf('Acme'),
    sessionOnly: true,
  });
  await syncStore(core, store.id);
  const test = sim.snapshot('Acme').tests[0];
  if (!test) throw new Error('a test is needed');
  await core.services.notes.set({ storeId: store.id, testId: test.id, body: 'Mine' });
  const good = join(root.path, 'good.backup');
  await core.data.backup(good);
  await core.close();

  const text = join(root.path, 'notes.txt');
  writeFileSync(text, 'not a database\n');
  const cacheCopy = join(root.path, 'splitbook.db');
  copyFileSync(join(dir, 'splitbook.db'), cacheCopy);
  const newer = join(root.path, 'newer.backup');
  copyFileSync(good, newer);
  const db = new Database(newer);
  db.pragma('user_version = 999');
  db.close();
  // A page in the middle overwritten: the header is whole, the b-tree is not.
  const damaged = join(root.path, 'damaged.backup');
  copyFileSync(good, damaged);
  const pageSize = readFileSync(good).readUInt16BE(16);
  const fd = openSync(damaged, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, pageSize * 2);
  closeSync(fd);
  const truncated = join(root.path, 'truncated.backup');
  writeFileSync(truncated, readFileSync(good).subarray(0, Math.floor(statSync(good).size / 2)));

  const before = folderContent(dir);
  const cases: [string, RegExp][] = [
    [
      text,
      /^Not a Splitbook backup: .*notes\.txt is not a SQLite database\. Nothing was changed\.$/,
    ],
    [
      cacheCopy,
      /^Not a Splitbook backup: .*splitbook\.db is a SQLite database without the label a backup carries/,
    ],
    [
      newer,
      /^Backup from a newer Splitbook: .*layout 999.*Update Splitbook, then restore it\. Nothing was changed\.$/,
    ],
    [damaged, /^The backup is damaged: .*fails SQLite's integrity check/],
    [truncated, /^The backup is damaged: /],
    [join(root.path, 'missing.backup'), /^No such file: /],
  ];
  for (const [file, message] of cases) {
    const run = await cli(dir, ['restore', file]);
    expect(run.code, file).toBe(1);
    expect(run.err.trim()).toMatch(message);
  }
  expect(folderContent(dir)).toEqual(before);
  // The good one still restores over the same folder, and the replaced files are kept beside it.
  const run = await cli(dir, ['restore', good]);
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  const kept = folderNames(dir).filter((name) => name.startsWith('before-restore-'));
  expect(kept).toHaveLength(1);
  expect(tableRows(join(dir, kept[0] ?? '', 'splitbook-user.db'))).toEqual(before.user);
  expect(tableRows(join(dir, kept[0] ?? '', 'splitbook.db'))).toEqual(before.cache);
}, 120_000);

it('refuses a restore while another Splitbook process has the folder open, and goes ahead once it is killed', async () => {
  const dir = join(root.path, 'busy');
  const backupDir = join(root.path, 'other');
  const other = await startCore(backupDir, { secrets: createMemorySecretStore() });
  const demo = await other.services.stores.openDemo({});
  const file = join(root.path, 'other.backup');
  await other.data.backup(file);
  await other.close();

  const app = await running(dir);
  const acme = await addStore(app, 'Acme');
  await app.call('notes.set', {
    storeId: acme.id,
    testId: 'any-test',
    body: 'Made in the running app',
  });
  const refused = await cli(dir, ['restore', file]);
  expect(refused.code).toBe(1);
  expect(refused.err.trim()).toMatch(
    /^The data folder is in use: Another Splitbook .* has .* open\. Close it, then restore again\. Nothing was changed\.$/,
  );
  expect(folderNames(dir).some((name) => name.startsWith('before-restore-'))).toBe(false);
  // The app goes on with its data as it was.
  expect((await app.call<StoreSummary[]>('stores.list', {})).map((s) => s.name)).toEqual(['Acme']);
  expect(
    (await app.call<{ body: string }>('notes.get', { storeId: acme.id, testId: 'any-test' })).body,
  ).toBe('Made in the running app');

  // Killed, it holds nothing: the operating system dropped its lock with the process.
  await app.kill('SIGKILL');
  const done = await cli(dir, ['restore', file]);
  expect(done.err).toBe('');
  expect(done.code).toBe(0);
  expect(done.out).toContain('1 store (Demo store)');
  expect(done.out).toContain('No longer listed (not in the backup): Acme.');
  const listed = await cli(dir, ['stores', '--json']);
  expect((JSON.parse(listed.out) as StoreSummary[]).map((s) => s.id)).toEqual([demo.id]);
  const kept = folderNames(dir).find((name) => name.startsWith('before-restore-')) ?? '';
  const previous = tableRows(join(dir, kept, 'splitbook-user.db'));
  expect(JSON.stringify(previous['notes'])).toContain('Made in the running app');
}, 120_000);
