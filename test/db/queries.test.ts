// Reads for the bridge (detail, results, campaigns, audiences, tags, set-aside) and the stores and sync-state records.
import { describe, expect, it } from 'vitest';
import { clearSetAside, setAside } from '#core/db/cache/set-aside';
import {
  clearSyncState,
  getResourceSyncs,
  getSyncState,
  markResourceSynced,
  saveSyncState,
} from '#core/db/cache/sync-state';
import { markMissingRemoved, upsertTests } from '#core/db/cache/tests';
import { replaceCampaigns } from '#core/db/cache/campaigns';
import { replaceCustomAudiences } from '#core/db/cache/audiences';
import {
  getResults,
  getTestDetail,
  listAudiences,
  listCampaigns,
  listSetAside,
  listTags,
} from '#core/db/cache/reads';
import {
  getStoreRow,
  insertStore,
  listStoreRows,
  recordSyncOutcome,
  storeCounts,
  updateStore,
} from '#core/db/cache/stores';
import { openDatabase } from '#core/db/open';
import { join } from 'node:path';
import {
  addStore,
  customAudience,
  item,
  makeCampaign,
  makeTest,
  openTempDb,
  tag,
  tempDir,
} from './fixtures';

const NOW = '2026-03-01T10:00:00Z';

describe('getTestDetail and getResults', () => {
  it('return null for what is not cached', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const test = makeTest({ n: 1 });
    upsertTests(db, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });
    expect(getTestDetail(db, 's1', 'nope')).toBeNull();
    expect(getTestDetail(db, 's2', test.id)).toBeNull();
    expect(getResults(db, 's1', test.id)).toBeNull();
  });

  it('give the store name and when the test and its results were synced', () => {
    const db = openTempDb();
    addStore(db, 's1', 'Main shop');
    const test = makeTest({ n: 1 });
    upsertTests(db, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });
    expect(getTestDetail(db, 's1', test.id)).toEqual({
      storeId: 's1',
      storeName: 'Main shop',
      test,
      removed: false,
      syncedAt: NOW,
      resultsSyncedAt: null,
      decision: null,
    });
  });

  it('survive closing and reopening the file', () => {
    const file = join(tempDir(), 'cache.db');
    const test = makeTest({ n: 1, tags: [tag(1, 'Kept')] });
    const first = openDatabase(file);
    addStore(first, 's1');
    upsertTests(first, { storeId: 's1', tests: [test], runId: 'run-1', syncedAt: NOW });
    first.close();
    const again = openDatabase(file);
    expect(getTestDetail(again, 's1', test.id)?.test).toEqual(test);
    again.close();
  });
});

describe('campaigns, audiences and tags', () => {
  it('list campaigns of one store or all, stores in their order, campaigns by name', () => {
    const db = openTempDb();
    addStore(db, 'b', 'Second');
    addStore(db, 'a', 'First');
    updateStore(db, 'a', { position: -1 });
    const zulu = makeCampaign(1, 'zulu');
    const alpha = makeCampaign(2, 'Alpha');
    replaceCampaigns(db, { storeId: 'b', campaigns: [zulu, alpha], syncedAt: NOW });
    const other = makeCampaign(3, 'Other');
    replaceCampaigns(db, { storeId: 'a', campaigns: [other], syncedAt: NOW });

    expect(listCampaigns(db, null).map((row) => [row.storeName, row.campaign.name])).toEqual([
      ['First', 'Other'],
      ['Second', 'Alpha'],
      ['Second', 'zulu'],
    ]);
    expect(listCampaigns(db, 'b').map((row) => row.campaign)).toEqual([alpha, zulu]);
    expect(listCampaigns(db, 'nope')).toEqual([]);
  });

  it('count the tests using each audience, leaving out removed tests', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const eu = customAudience(1, 'EU buyers');
    const vip = customAudience(2, 'VIP');
    replaceCustomAudiences(db, { storeId: 's1', audiences: [eu, vip], syncedAt: NOW });
    const tests = [
      makeTest({ n: 1, customAudiences: [eu] }),
      makeTest({ n: 2, customAudiences: [eu, vip] }),
      makeTest({ n: 3, customAudiences: [eu] }),
    ];
    upsertTests(db, { storeId: 's1', tests: tests, runId: 'run-1', syncedAt: NOW });
    upsertTests(db, { storeId: 's1', tests: tests.slice(0, 2), runId: 'run-2', syncedAt: NOW });
    markMissingRemoved(db, 's1', 'run-2');

    expect(listAudiences(db, 's1')).toEqual([
      { storeId: 's1', storeName: 'Store s1', audience: eu, testCount: 2 },
      { storeId: 's1', storeName: 'Store s1', audience: vip, testCount: 1 },
    ]);
    expect(listAudiences(db, null)).toHaveLength(2);
    expect(listAudiences(db, 's2')).toEqual([]);
  });

  it('collect tags from tests, following renames, with their test counts', () => {
    const db = openTempDb();
    addStore(db, 's1');
    addStore(db, 's2');
    upsertTests(db, {
      storeId: 's1',
      tests: [
        item(makeTest({ n: 1, tags: [tag(1, 'Checkout'), tag(2, 'mobile')] })),
        item(makeTest({ n: 2, tags: [tag(1, 'Checkout')] })),
      ],
      runId: 'run-1',
      syncedAt: NOW,
    });
    upsertTests(db, {
      storeId: 's2',
      tests: [item(makeTest({ n: 3, tags: [tag(3, 'Banner')] }))],
      runId: 'run-1',
      syncedAt: NOW,
    });
    upsertTests(db, {
      storeId: 's1',
      tests: [item(makeTest({ n: 2, tags: [tag(1, 'Check-out')] }))],
      runId: 'run-2',
      syncedAt: NOW,
    });

    expect(listTags(db, 's1')).toEqual([
      { storeId: 's1', id: tag(1, '').id, name: 'Check-out', testCount: 2 },
      { storeId: 's1', id: tag(2, '').id, name: 'mobile', testCount: 1 },
    ]);
    expect(listTags(db, null).map((t) => t.name)).toEqual(['Banner', 'Check-out', 'mobile']);
  });
});

describe('set-aside records', () => {
  it('are listed newest first, with no id as null, and can be cleared', () => {
    const db = openTempDb();
    addStore(db, 's1');
    addStore(db, 's2');
    setAside(db, {
      storeId: 's1',
      resource: 'campaign',
      recordId: 'c-1',
      error: 'name: expected string',
      raw: { id: 'c-1' },
      seenAt: '2026-03-01T00:00:00Z',
    });
    setAside(db, {
      storeId: 's1',
      resource: 'test',
      recordId: null,
      error: 'id: expected a UUID',
      raw: { id: 7 },
      seenAt: '2026-03-02T00:00:00Z',
    });
    setAside(db, {
      storeId: 's2',
      resource: 'audience',
      recordId: 'a-1',
      error: 'rules: expected array',
      raw: {},
      seenAt: '2026-03-03T00:00:00Z',
    });
    setAside(db, {
      storeId: 's1',
      resource: 'campaign',
      recordId: 'c-1',
      error: 'goal: expected string',
      raw: { id: 'c-1' },
      seenAt: '2026-03-04T00:00:00Z',
    }); // seen again

    expect(listSetAside(db, 's1')).toEqual([
      {
        storeId: 's1',
        resource: 'campaign',
        recordId: 'c-1',
        error: 'goal: expected string',
        seenAt: '2026-03-04T00:00:00Z',
      },
      {
        storeId: 's1',
        resource: 'test',
        recordId: null,
        error: 'id: expected a UUID',
        seenAt: '2026-03-02T00:00:00Z',
      },
    ]);
    expect(listSetAside(db, null)).toHaveLength(3);
    expect(storeCounts(db, 's1').setAside).toBe(2);

    clearSetAside(db, 's1', 'test', null);
    clearSetAside(db, 's1', 'campaign', 'c-1');
    expect(listSetAside(db, 's1')).toEqual([]);
  });

  it('are cleared when the record comes back valid in a campaign or audience list', () => {
    const db = openTempDb();
    addStore(db, 's1');
    const spring = makeCampaign(1, 'Spring');
    const eu = customAudience(1, 'EU');
    setAside(db, {
      storeId: 's1',
      resource: 'campaign',
      recordId: spring.id,
      error: 'bad',
      raw: {},
      seenAt: NOW,
    });
    setAside(db, {
      storeId: 's1',
      resource: 'audience',
      recordId: eu.id,
      error: 'bad',
      raw: {},
      seenAt: NOW,
    });
    replaceCampaigns(db, { storeId: 's1', campaigns: [spring], syncedAt: NOW });
    replaceCustomAudiences(db, { storeId: 's1', audiences: [eu], syncedAt: NOW });
    expect(listSetAside(db, 's1')).toEqual([]);
  });
});

describe('stores', () => {
  it('go last unless placed, and keep no key', () => {
    const db = openTempDb();
    const first = addStore(db, 'a', 'First');
    const second = addStore(db, 'b', 'Second');
    expect([first.position, second.position]).toEqual([0, 1]);
    expect(second).toEqual({
      id: 'b',
      name: 'Second',
      baseUrl: 'https://b.example.com',
      kind: 'api',
      keyStorage: 'keychain',
      createdAt: '2026-01-01T00:00:00Z',
      lastSyncedAt: null,
      lastFinishedAt: null,
      lastOutcome: null,
      lastProblem: null,
      position: 1,
      learnedRate: null,
    });
    const columns = db
      .prepare<[], string>(`SELECT name FROM pragma_table_info('stores')`)
      .pluck()
      .all();
    expect(columns.filter((name) => /key|secret|token/i.test(name))).toEqual(['key_storage']);

    insertStore(db, {
      id: 'demo',
      name: 'Demo',
      baseUrl: 'demo:',
      kind: 'demo',
      keyStorage: 'none',
      createdAt: NOW,
      position: -5,
    });
    expect(listStoreRows(db).map((store) => store.id)).toEqual(['demo', 'a', 'b']);
  });

  it('change only the fields given', () => {
    const db = openTempDb();
    addStore(db, 'a', 'First');
    expect(updateStore(db, 'a', { name: 'Renamed' })).toMatchObject({
      name: 'Renamed',
      keyStorage: 'keychain',
      position: 0,
    });
    expect(updateStore(db, 'a', { keyStorage: 'session', position: 3 })).toMatchObject({
      name: 'Renamed',
      keyStorage: 'session',
      position: 3,
    });
    expect(updateStore(db, 'nope', { name: 'x' })).toBeNull();
    expect(getStoreRow(db, 'nope')).toBeNull();
  });

  it('record how each sync ended; a failed one keeps the last successful time', () => {
    const db = openTempDb();
    addStore(db, 'a');
    recordSyncOutcome(db, 'a', {
      outcome: 'ok',
      problem: null,
      finishedAt: '2026-03-01T00:00:00Z',
      lastSyncedAt: '2026-03-01T00:00:00Z',
    });
    const offline = {
      type: 'splitbook:offline',
      title: 'Offline',
      status: 503,
      detail: 'No network',
    };
    recordSyncOutcome(db, 'a', {
      outcome: 'offline',
      problem: offline,
      finishedAt: '2026-03-02T00:00:00Z',
      lastSyncedAt: null,
    });
    expect(getStoreRow(db, 'a')).toMatchObject({
      lastOutcome: 'offline',
      lastProblem: offline,
      lastFinishedAt: '2026-03-02T00:00:00Z',
      lastSyncedAt: '2026-03-01T00:00:00Z',
    });
  });
});

describe('sync state', () => {
  it('saves, reads and clears the place of an unfinished run', () => {
    const db = openTempDb();
    addStore(db, 'a');
    expect(getSyncState(db, 'a')).toBeNull();
    saveSyncState(db, 'a', {
      runId: 'r1',
      phase: 'tests',
      nextPage: 3,
      startedAt: NOW,
      updatedAt: NOW,
    });
    saveSyncState(db, 'a', {
      runId: 'r1',
      phase: 'results',
      nextPage: null,
      startedAt: NOW,
      updatedAt: '2026-03-01T10:05:00Z',
    });
    expect(getSyncState(db, 'a')).toEqual({
      runId: 'r1',
      phase: 'results',
      nextPage: null,
      startedAt: NOW,
      updatedAt: '2026-03-01T10:05:00Z',
    });
    clearSyncState(db, 'a');
    expect(getSyncState(db, 'a')).toBeNull();
  });

  it('records when each resource last synced', () => {
    const db = openTempDb();
    addStore(db, 'a');
    markResourceSynced(db, 'a', 'tests', '2026-03-01T00:00:00Z');
    markResourceSynced(db, 'a', 'campaigns', '2026-03-01T00:01:00Z');
    markResourceSynced(db, 'a', 'tests', '2026-03-02T00:00:00Z');
    expect(getResourceSyncs(db, 'a')).toEqual([
      { resource: 'campaigns', syncedAt: '2026-03-01T00:01:00Z' },
      { resource: 'tests', syncedAt: '2026-03-02T00:00:00Z' },
    ]);
  });
});
