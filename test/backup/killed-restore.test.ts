// A restore killed between its renames (issue 46, item 2), on real parts: the restore runs in a process of
// its own that SIGKILLs itself after each step of the swap (the journal written, each rename, the new files
// opened), then the CLI and the browser host start on the folder. Every start finishes the restore (the
// backup's stores and notes, the replaced data kept in before-restore-*/), leaves no staged file or
// journal, and tells the user; staged files of a restore killed before its swap go, changing nothing; a
// swap whose staged files are gone is undone.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import type { CacheStatus, StoreSummary } from '#shared/contract/index';
import { createMemorySecretStore } from '#core/secrets/index';
import { runTsx } from '../hosts/support/spawn';
import { startCore } from '../support/core';
import { childEnv, cli, startApp, tableRows, tempRoot, type RunningApp } from './support';

let sim: Simulator;
let served: ServedSimulator;
let root: ReturnType<typeof tempRoot>;
let backup = '';
let newStore = '';
const apps: RunningApp[] = [];

/** A folder with one store and a note on one of its tests. */
async function folderWith(dir: string, name: string, note: string): Promise<string> {
  const core = await startCore(dir, { secrets: createMemorySecretStore(), pushOnEdit: false });
  try {
    const store = await core.services.stores.add({
      name,
      baseUrl: served.url,
      apiKey: sim.stores[0]?.apiKey ?? '',
      sessionOnly: true,
    });
    await core.services.notes.set({ storeId: store.id, testId: 'test-1', body: note });
    return store.id;
  } finally {
    await core.close();
  }
}

beforeAll(async () => {
  sim = createSimulator({ seed: 3, stores: [{ name: 'Acme', tests: 6 }] });
  served = await serveSimulator(sim, { port: 0 });
  root = tempRoot('splitbook-killed-restore-');
  const source = join(root.path, 'source');
  newStore = await folderWith(source, 'From the backup', 'Written before the backup');
  backup = join(root.path, 'data.backup');
  const core = await startCore(source, { secrets: createMemorySecretStore() });
  await core.data.backup(backup);
  await core.close();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.kill('SIGKILL');
});
afterAll(async () => {
  await served.close();
  root.remove();
});

/** A live folder, and a restore of the backup into it killed at `step`. */
async function killedAt(name: string, step: string) {
  const dir = join(root.path, name);
  const oldStore = await folderWith(dir, 'Replaced', 'Written in the folder');
  const run = await runTsx('test/backup/fixtures/restore-child.ts', [dir, backup, step], {
    env: childEnv(),
  });
  expect(run.stdout, run.stderr).toBe('');
  // Killed by itself at the step: tsx's launcher reports the SIGKILL as 128 + 9.
  expect(run.code).toBe(137);
  return { dir, oldStore };
}

/** The folder's own entries that only a half-done restore leaves. */
function leftovers(dir: string): string[] {
  return readdirSync(dir).filter(
    (name) => name.includes('.restoring-') || name.startsWith('restore-journal'),
  );
}

async function appOn(dir: string): Promise<RunningApp> {
  const app = await startApp(dir, root.path);
  apps.push(app);
  return app;
}

const FINISHED =
  /^A restore that was cut short has been finished: Splitbook stopped while restoring .*data\.backup .*and finished it at this start: your data is the backup's\. The data it replaced is kept in .*before-restore-/;

for (const [index, step] of [
  'journal',
  'renamed-1',
  'renamed-2',
  'renamed-3',
  'renamed-4',
  'opened',
].entries()) {
  it(`a restore killed after ${step} is finished at the next start, which says so; both hosts then show the backup's data`, async () => {
    const { dir } = await killedAt(step, step);
    if (step === 'journal') {
      // The swap is these four renames (the folder's files were closed, so no -wal or -shm moves).
      const journal = JSON.parse(readFileSync(join(dir, 'restore-journal.json'), 'utf8')) as {
        moves: { role: string; from: string; to: string }[];
      };
      expect(
        journal.moves.map((m) => [m.role, m.to.replace(/before-restore-[^/]+/, 'kept')]),
      ).toEqual([
        ['out', 'kept/splitbook.db'],
        ['out', 'kept/splitbook-user.db'],
        ['in', 'splitbook-user.db'],
        ['in', 'splitbook.db'],
      ]);
    }
    const cliFirst = index % 2 === 0;
    if (cliFirst) {
      const listed = await cli(dir, ['stores', '--json']);
      expect(listed.code, listed.err).toBe(0);
      expect(listed.err.trim()).toMatch(FINISHED);
      expect((JSON.parse(listed.out) as StoreSummary[]).map((s) => [s.id, s.name])).toEqual([
        [newStore, 'From the backup'],
      ]);
    }
    const app = await appOn(dir);
    const status = await app.call<CacheStatus>('app.cacheStatus', {});
    expect(status.state).toBe('ok');
    if (cliFirst) expect(status.notice).toBeNull();
    else expect(`${status.notice?.title}: ${status.notice?.detail}`).toMatch(FINISHED);
    expect((await app.call<StoreSummary[]>('stores.list', {})).map((s) => [s.id, s.name])).toEqual([
      [newStore, 'From the backup'],
    ]);
    expect(
      (await app.call<{ body: string }>('notes.get', { storeId: newStore, testId: 'test-1' })).body,
    ).toBe('Written before the backup');
    await app.kill('SIGTERM');
    expect(leftovers(dir)).toEqual([]);
    // The data it replaced is kept whole.
    const kept = readdirSync(dir).filter((name) => name.startsWith('before-restore-'));
    expect(kept).toHaveLength(1);
    expect(
      JSON.stringify(tableRows(join(dir, kept[0] ?? '', 'splitbook-user.db'))['notes']),
    ).toContain('Written in the folder');
    // And a later start says nothing more.
    const again = await cli(dir, ['stores']);
    expect(again.err).toBe('');
  }, 120_000);
}

it("a swap whose staged files are gone is undone at the next start, which says so, and the folder's data is as before", async () => {
  const { dir, oldStore } = await killedAt('undone', 'renamed-1');
  for (const name of readdirSync(dir).filter((n) => n.startsWith('splitbook-user.db.restoring-')))
    rmSync(join(dir, name));
  const listed = await cli(dir, ['stores', '--json']);
  expect(listed.code, listed.err).toBe(0);
  expect(listed.err.trim()).toMatch(
    /^A restore that was cut short has been undone: .*your data is as it was before it\./,
  );
  expect((JSON.parse(listed.out) as StoreSummary[]).map((s) => [s.id, s.name])).toEqual([
    [oldStore, 'Replaced'],
  ]);
  expect(leftovers(dir)).toEqual([]);
  expect(readdirSync(dir).filter((name) => name.startsWith('before-restore-'))).toEqual([]);
});

it('staged files of a restore killed before its swap are removed at the next start, and nothing else changes', async () => {
  const dir = join(root.path, 'staging');
  const oldStore = await folderWith(dir, 'Replaced', 'Written in the folder');
  for (const name of [
    'splitbook.db.restoring-2026-11-30T10-00-00-000Z',
    'splitbook-user.db.restoring-2026-11-30T10-00-00-000Z',
    'splitbook-user.db.restoring-2026-11-30T10-00-00-000Z-wal',
  ])
    writeFileSync(join(dir, name), 'half made');
  mkdirSync(join(dir, 'reports'), { recursive: true });
  const app = await appOn(dir);
  expect((await app.call<CacheStatus>('app.cacheStatus', {})).notice).toBeNull();
  expect((await app.call<StoreSummary[]>('stores.list', {})).map((s) => s.id)).toEqual([oldStore]);
  expect(leftovers(dir)).toEqual([]);
  expect(readdirSync(dir)).toContain('reports');
});

it('a journal whose renames cannot be made does not stop the start: it says so, and the folder is used as it is', async () => {
  const dir = join(root.path, 'unfinishable');
  const oldStore = await folderWith(dir, 'Replaced', 'Written in the folder');
  writeFileSync(join(dir, 'splitbook.db.restoring-x'), 'staged');
  writeFileSync(
    join(dir, 'restore-journal.json'),
    JSON.stringify({
      version: 1,
      backup: '/somewhere/data.backup',
      backupCreatedAt: '2026-11-01T00:00:00.000Z',
      startedAt: '2026-11-02T00:00:00.000Z',
      previous: 'before-restore-x',
      // Its kept folder was never made: the first rename fails.
      moves: [
        { role: 'out', from: 'splitbook.db', to: 'before-restore-x/splitbook.db' },
        { role: 'in', from: 'splitbook.db.restoring-x', to: 'splitbook.db' },
      ],
    }),
  );
  const listed = await cli(dir, ['stores', '--json']);
  expect(listed.code).toBe(0);
  expect(listed.err).toContain('A restore that was cut short could not be finished: ');
  expect((JSON.parse(listed.out) as StoreSummary[]).map((s) => s.id)).toEqual([oldStore]);
  // Kept for the next start to try again.
  expect(leftovers(dir).sort()).toEqual(['restore-journal.json', 'splitbook.db.restoring-x']);
});
