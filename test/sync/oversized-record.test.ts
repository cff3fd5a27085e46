// One record too large (or unreadable) for its listing page no longer makes the store unsyncable: the
// page is read again in smaller pages, every record that fits is cached, and only that one is set
// aside, by its id when the answer shows it, else by its listing position (issue 23, item 1).
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '#core/api/index';
import { insertStore } from '#core/db/cache/stores';
import { listSetAside, pageSetAside } from '#core/db/cache/reads';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { createSyncEngine } from '#core/sync/run';
import { TestListInput } from '#shared/contract/index';
import { listTests } from '#core/db/cache/test-list';
import { createSimulator, serveSimulator, type ServedSimulator } from '#simulator/index';
import { testRecord } from '../api/support/fixtures';
import { tempDir } from '../support/core';

const STORE = 'Acme Outdoor';
const TWELVE_MB = 12 * 1024 * 1024;

let dir: ReturnType<typeof tempDir>;
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A sync engine on a real SQLite file against `baseUrl`, as the app builds one (default limits). */
function engineFor(
  baseUrl: string,
  apiKey: string,
): { db: Db; sync: () => ReturnType<ReturnType<typeof createSyncEngine>['run']> } {
  dir = tempDir();
  const db = openDatabase(join(dir.path, 'cache.db'));
  const removeDir = dir.remove;
  closers.push(() => removeDir());
  closers.push(() => {
    db.close();
  });
  insertStore(db, {
    id: 's',
    name: STORE,
    baseUrl,
    kind: 'api',
    keyStorage: 'none',
    createdAt: '2026-11-01T00:00:00Z',
  });
  const engine = createSyncEngine({
    db,
    clientFor: async () => createApiClient({ baseUrl, apiKey, maxBackoffMs: 20 }),
    clock: Date.now,
    onProgress: () => {},
    onFinished: () => {},
  });
  return { db, sync: () => engine.run('s') };
}

function cachedIds(db: Db, includeRemoved = false): string[] {
  return listTests(db, TestListInput.parse({ storeId: 's', limit: 500, includeRemoved }))
    .rows.map((row) => row.id)
    .sort();
}

function removedIds(db: Db): string[] {
  return listTests(db, TestListInput.parse({ storeId: 's', limit: 500, includeRemoved: true }))
    .rows.filter((row) => row.removed)
    .map((row) => row.id)
    .sort();
}

async function servedStore(
  tests: number,
): Promise<ServedSimulator & { sim: ReturnType<typeof createSimulator>; apiKey: string }> {
  const sim = createSimulator({ seed: 23, stores: [{ name: STORE, tests }] });
  const served = await serveSimulator(sim, { port: 0 });
  closers.push(() => served.close());
  return Object.assign(served, { sim, apiKey: sim.stores[0]?.apiKey ?? '' });
}

describe('a test too large for its listing page', () => {
  it('caches the other 59 tests, sets the big one aside with its id and reason, and does the same at the next sync', async () => {
    const served = await servedStore(60);
    const listed = served.sim.snapshot(STORE).tests;
    const big = listed[22];
    if (!big) throw new Error('no test 23');
    served.sim.touchTest(STORE, big.id, { title: 'x'.repeat(TWELVE_MB) });
    const others = listed
      .filter((t) => t.id !== big.id)
      .map((t) => t.id)
      .sort();
    const { db, sync } = engineFor(served.url, served.apiKey);

    for (const run of [1, 2]) {
      const report = await sync();
      expect(report.outcome, `sync ${run}`).toBe('partial');
      expect(report.setAside).toBe(1);
      expect(report.testsSeen).toBe(59);
      expect(report.testsRemoved).toBe(0);
      expect(cachedIds(db)).toEqual(others);
      expect(listSetAside(db, 's')).toEqual([
        expect.objectContaining({
          resource: 'test',
          recordId: big.id,
          error: expect.stringContaining('too large'),
        }),
      ]);
    }
    // Sync issues shows it with its reason.
    const issues = pageSetAside(db, { storeId: 's', kind: null, cursor: null, limit: 50 });
    expect(issues.rows).toEqual([
      expect.objectContaining({
        recordId: big.id,
        kind: 'invalid',
        error: expect.stringContaining('8 MB'),
      }),
    ]);
  }, 60_000);

  it('keeps a cached test that grew too large (not removed), while a test deleted meanwhile is marked removed', async () => {
    const served = await servedStore(60);
    const listed = served.sim.snapshot(STORE).tests;
    const [first, deleted] = [listed[0], listed[41]];
    if (!first || !deleted) throw new Error('too few tests');
    const { db, sync } = engineFor(served.url, served.apiKey);
    expect((await sync()).outcome).toBe('ok');
    expect(cachedIds(db)).toHaveLength(60);

    served.sim.touchTest(STORE, first.id, { title: 'y'.repeat(TWELVE_MB) });
    served.sim.removeTest(STORE, deleted.id);
    const report = await sync();
    expect(report.outcome).toBe('partial');
    expect(report.testsRemoved).toBe(1);
    expect(removedIds(db)).toEqual([deleted.id]);
    // The big one keeps its last good copy, listed and not removed.
    expect(cachedIds(db)).toEqual(
      listed
        .filter((t) => t.id !== deleted.id)
        .map((t) => t.id)
        .sort(),
    );
    expect(listSetAside(db, 's').map((r) => r.recordId)).toEqual([first.id]);

    // Fixed on the server: the next sync takes it and forgets the issue.
    served.sim.touchTest(STORE, first.id, { title: 'Back to normal' });
    expect((await sync()).outcome).toBe('ok');
    expect(listSetAside(db, 's')).toEqual([]);
    expect(removedIds(db)).toEqual([deleted.id]);
  }, 60_000);
});

/** A store of `records` (JSON text each) on a node:http server, paged exactly as the API pages. */
async function rawListingServer(records: string[]): Promise<string> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const route = url.pathname.replace('/api/public/v1', '');
    const send = (body: string) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    };
    if (route === '/campaigns/active') return send('{"campaigns":[]}');
    if (route === '/custom-audiences') return send('{"customAudiences":[]}');
    if (route !== '/tests') return send('{}');
    const page = Number(url.searchParams.get('page') ?? '1');
    const perPage = Number(url.searchParams.get('perPage') ?? '25');
    const data = records.slice((page - 1) * perPage, page * perPage);
    const pagination = {
      page,
      perPage,
      totalPages: Math.ceil(records.length / perPage),
      totalCount: records.length,
    };
    send(`{"data":[${data.join(',')}],"pagination":${JSON.stringify(pagination)}}`);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  closers.push(
    () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  );
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

const draft = (n: number) => testRecord({ title: `Test ${n}`, status: 'draft' });

describe('a record whose id cannot be read', () => {
  it('is set aside by its listing position when its oversized body hides the id, and the rest is cached', async () => {
    const tests = Array.from({ length: 10 }, (_, n) => draft(n));
    // Test 4 opens with 9 MB of padding: its id lies beyond anything Splitbook reads.
    const records = tests.map((t, n) =>
      n === 3
        ? `{"padding":"${'z'.repeat(9 * 1024 * 1024)}",${JSON.stringify(t).slice(1)}`
        : JSON.stringify(t),
    );
    const { db, sync } = engineFor(await rawListingServer(records), 'sk_test_position_00000');
    for (const run of [1, 2]) {
      const report = await sync();
      expect(report.outcome, `sync ${run}`).toBe('partial');
      expect(cachedIds(db)).toEqual(
        tests
          .filter((_, n) => n !== 3)
          .map((t) => String(t.id))
          .sort(),
      );
      expect(listSetAside(db, 's')).toEqual([
        expect.objectContaining({
          recordId: 'at listing position 4',
          error: expect.stringContaining('too large'),
        }),
      ]);
      // Which test it is cannot be told: nothing is marked removed on its account.
      expect(report.testsRemoved).toBe(0);
    }
  }, 60_000);

  it('sets aside records with an empty or no id one by one, each by its listing position', async () => {
    const tests = Array.from({ length: 6 }, (_, n) => draft(n));
    const records = tests.map((t, n) =>
      JSON.stringify(n === 1 ? { ...t, id: '' } : n === 4 ? { ...t, id: undefined } : t),
    );
    const { db, sync } = engineFor(await rawListingServer(records), 'sk_test_no_id_0000000');
    const report = await sync();
    expect(report.outcome).toBe('partial');
    expect(cachedIds(db)).toHaveLength(4);
    expect(
      listSetAside(db, 's')
        .map((r) => r.recordId)
        .sort(),
    ).toEqual(['at listing position 2', 'at listing position 5']);
  });

  it('sets aside an unreadable record (not JSON) by the id its answer shows, and caches its neighbours', async () => {
    const tests = Array.from({ length: 30 }, (_, n) => draft(n));
    const bad = tests[17];
    if (!bad) throw new Error('no test 18');
    // A record the server breaks: NaN is not JSON, so every page holding it is unreadable.
    const records = tests.map((t) =>
      t === bad ? JSON.stringify(t).replace('"period":14', '"period":NaN') : JSON.stringify(t),
    );
    const { db, sync } = engineFor(await rawListingServer(records), 'sk_test_unreadable_000');
    const report = await sync();
    expect(report.outcome).toBe('partial');
    expect(cachedIds(db)).toEqual(
      tests
        .filter((t) => t !== bad)
        .map((t) => String(t.id))
        .sort(),
    );
    expect(listSetAside(db, 's')).toEqual([
      expect.objectContaining({
        recordId: bad.id,
        error: expect.stringContaining('not valid JSON'),
      }),
    ]);
  }, 60_000);
});
