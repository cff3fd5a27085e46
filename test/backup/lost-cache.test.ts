// A lost or damaged cache (issue 46, items 1 and 3) on real parts: the store added in the browser host (a
// process of its own), an edit of every kind queued (a test's title, a tag created and put on a test, a
// campaign renamed, an audience created), notes, a takeaway and a review mark; then the cache file
// deleted or overwritten. Every start (the CLI, the browser host) keeps the store under its id with its
// data in view, and the next sync sends each edit to the simulator over loopback.
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import type { CacheStatus, PendingEdit, StoreSummary } from '#shared/contract/index';
import { createMemorySecretStore } from '#core/secrets/index';
import { startCore } from '../support/core';
import { cli, realKeyring, startApp, tempRoot, type RunningApp } from './support';

let sim: Simulator;
let served: ServedSimulator;
let root: ReturnType<typeof tempRoot>;
const apps: RunningApp[] = [];

beforeEach(async () => {
  sim = createSimulator({ seed: 46, stores: [{ name: 'Acme', tests: 30 }] });
  served = await serveSimulator(sim, { port: 0 });
  root = tempRoot('splitbook-lost-cache-');
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.kill('SIGKILL');
  await served.close();
  root.remove();
});

const apiKey = () => sim.stores[0]?.apiKey ?? '';

async function running(dataDir: string): Promise<RunningApp> {
  const app = await startApp(dataDir, root.path);
  apps.push(app);
  return app;
}

async function synced(app: RunningApp, storeId: string): Promise<void> {
  await app.call('sync.start', { storeId });
  for (;;) {
    const store = (await app.call<StoreSummary[]>('stores.list', {})).find((s) => s.id === storeId);
    if (store && store.sync.state !== 'syncing' && store.sync.lastSyncedAt) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A folder whose store was added and synced by the browser host, with one queued edit of each kind (made
 * by a core that does not push, as an offline window would leave them) and the user's own notes.
 */
async function folderWithEveryKindOfEdit(dataDir: string) {
  const app = await running(dataDir);
  const acme = await app.call<StoreSummary>('stores.add', {
    name: 'Acme',
    baseUrl: served.url,
    apiKey: apiKey(),
    sessionOnly: !realKeyring,
  });
  await synced(app, acme.id);
  await app.kill('SIGTERM');

  const server = sim.snapshot('Acme');
  const [titled, tagged] = server.tests.filter((t) => ['active', 'paused'].includes(t.status));
  const campaign = server.campaigns.find((c) => c.status === 'active');
  if (!titled || !tagged || !campaign) throw new Error('two launched tests and a campaign needed');
  // The CLI's edit queues the tag's create and the test's change that uses it, as issue 46 did.
  const tagEdit = await cli(dataDir, [
    'edit',
    '--store',
    'Acme',
    '--test',
    tagged.id,
    '--add-tag',
    'BrandNew',
  ]);
  expect(tagEdit.err).toBe('');
  const core = await startCore(dataDir, { secrets: createMemorySecretStore(), pushOnEdit: false });
  try {
    const { storeId } = { storeId: acme.id };
    await core.services.edits.editTest({
      storeId,
      testId: titled.id,
      changes: { title: 'Kept through a lost cache' },
    });
    await core.services.edits.editCampaign({
      storeId,
      campaignId: campaign.id,
      changes: { name: 'Renamed offline' },
    });
    await core.services.edits.createAudience({
      storeId,
      name: 'Made offline',
      rules: [{ dimension: 'country', operator: 'in', values: ['SE'], selector: null }],
    });
    await core.services.notes.set({
      storeId,
      testId: titled.id,
      body: 'Ask the client about the hero image',
    });
    await core.services.programme.setTakeaway({
      storeId,
      testId: titled.id,
      text: 'Hero images matter',
    });
    await core.services.review.markReviewed({ storeId });
    expect((await core.services.edits.list({ storeId })).map((e) => e.kind).sort()).toEqual([
      'audience',
      'campaign',
      'tag',
      'test',
      'test',
    ]);
  } finally {
    await core.close();
  }
  return { acme, titled, tagged, campaign };
}

/** What a start shows of the store and the user's data, read through the browser host. */
async function whatTheAppShows(app: RunningApp, storeId: string, testId: string) {
  const stores = await app.call<StoreSummary[]>('stores.list', {});
  const edits = await app.call<PendingEdit[]>('edits.list', { storeId });
  const note = await app.call<{ body: string }>('notes.get', { storeId, testId });
  const status = await app.call<CacheStatus>('app.cacheStatus', {});
  return {
    stores: stores.map((s) => [s.id, s.name]),
    edits: edits.map((e) => [e.kind, e.state]).sort(),
    note: note.body,
    status: status.state,
  };
}

/** The app sends what waited: with the keychain's key, or once it is given the key again; a sync at a time. */
async function appSends(app: RunningApp, storeId: string): Promise<void> {
  if (!realKeyring)
    await app.call('stores.setKey', { storeId, apiKey: apiKey(), sessionOnly: true });
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await synced(app, storeId);
    if ((await app.call<PendingEdit[]>('edits.list', { storeId })).length === 0) return;
    await app.call('sync.start', { storeId });
  }
  expect(await app.call<PendingEdit[]>('edits.list', { storeId })).toEqual([]);
}

function expectSent(ids: {
  titled: { id: string };
  tagged: { id: string };
  campaign: { id: string };
}) {
  const server = sim.snapshot('Acme');
  expect(server.tests.find((t) => t.id === ids.titled.id)?.title).toBe('Kept through a lost cache');
  const brandNew = server.tags.filter((t) => t.name === 'BrandNew');
  expect(brandNew).toHaveLength(1);
  expect(server.tests.find((t) => t.id === ids.tagged.id)?.tags.map((t) => t.id)).toContain(
    brandNew[0]?.id,
  );
  expect(server.campaigns.find((c) => c.id === ids.campaign.id)?.name).toBe('Renamed offline');
  expect(server.customAudiences.map((a) => a.name)).toContain('Made offline');
}

it('a deleted cache with an edit of every kind queued: the CLI and the browser host start with the store under its id, its notes shown, and the next sync sends every edit', async () => {
  const dir = join(root.path, 'data');
  const made = await folderWithEveryKindOfEdit(dir);
  for (const part of ['', '-wal', '-shm'])
    rmSync(join(dir, `splitbook.db${part}`), { force: true });

  const listed = await cli(dir, ['stores', '--json']);
  expect(listed.err).toBe('');
  expect(listed.code).toBe(0);
  expect((JSON.parse(listed.out) as StoreSummary[]).map((s) => [s.id, s.name])).toEqual([
    [made.acme.id, 'Acme'],
  ]);
  const pending = await cli(dir, ['pending', '--store', 'Acme']);
  expect(pending.code).toBe(0);
  expect(pending.out).toContain('BrandNew');
  expect(pending.out).toContain('Kept through a lost cache');

  const app = await running(dir);
  expect(await whatTheAppShows(app, made.acme.id, made.titled.id)).toEqual({
    stores: [[made.acme.id, 'Acme']],
    edits: [
      ['audience', 'queued'],
      ['campaign', 'queued'],
      ['tag', 'queued'],
      ['test', 'queued'],
      ['test', 'queued'],
    ],
    note: 'Ask the client about the hero image',
    status: 'ok',
  });
  await app.kill('SIGTERM');

  // The CLI's sync sends them all, with the key from the keychain; without one, the app once given it.
  if (realKeyring) {
    const run = await cli(dir, ['sync', '--store', 'Acme']);
    expect(run.err).toBe('');
    expect(run.out).toContain('5 edits sent, 0 failed');
  } else await appSends(await running(dir), made.acme.id);
  expectSent(made);
}, 180_000);

it('a damaged cache with an edit of every kind queued: both hosts start on it with the store listed, Rebuild cache keeps the store and its edits, and the next sync sends them', async () => {
  const dir = join(root.path, 'data');
  const made = await folderWithEveryKindOfEdit(dir);
  const file = join(dir, 'splitbook.db');
  // Garbage over the second half of its pages, as a failing disk leaves them.
  const size = statSync(file).size;
  const fd = openSync(file, 'r+');
  const junk = Buffer.alloc(size - Math.floor(size / 2), 0xa5);
  writeSync(fd, junk, 0, junk.length, Math.floor(size / 2));
  closeSync(fd);

  const listed = await cli(dir, ['stores', '--json']);
  expect(listed.code).toBe(0);
  expect((JSON.parse(listed.out) as StoreSummary[]).map((s) => s.id)).toEqual([made.acme.id]);
  const app = await running(dir);
  const before = await whatTheAppShows(app, made.acme.id, made.titled.id);
  expect(before).toMatchObject({
    stores: [[made.acme.id, 'Acme']],
    note: 'Ask the client about the hero image',
    status: 'corrupt',
  });
  expect(before.edits).toHaveLength(5);
  expect(await app.call('app.rebuildCache', {})).toEqual({ storesKept: 1 });
  const after = await whatTheAppShows(app, made.acme.id, made.titled.id);
  expect(after).toMatchObject({ stores: [[made.acme.id, 'Acme']], status: 'ok' });
  // The rebuild syncs every store, which sends what waited.
  await appSends(app, made.acme.id);
  expectSent(made);
}, 180_000);
