// The rebase, on real SQLite files: the cache's copy of a record with unsent edits is "server copy +
// pending edits" after an edit, a pull, a crash between the two files, and once a create is settled.
import { describe, expect, it } from 'vitest';
import { cachedCampaign, cachedTest, tagById } from '#core/db/cache/local-copies';
import {
  rebaseAll,
  rebasePulledLists,
  rebasePulledTests,
  rebaseRecord,
  settleCreate,
} from '#core/outbox/rebase';
import { serverTest } from '#core/outbox/kinds/test';
import { appendOutbox, saveServerCopy, serverCopy, outboxRows } from '#core/db/user/outbox';
import { pendingRecord } from '#core/outbox/store';
import type { Db } from '#core/db/types';
import { customAudience, makeCampaign, makeTest, tag } from '../db/fixtures';
import { NOW, STORE, cache, outboxDb } from './support';

const test = makeTest({ n: 1, title: 'Server', priority: 'low' });

function edit(
  db: Db,
  recordId: string,
  changes: Record<string, unknown>,
  kind: 'test' | 'campaign' = 'test',
) {
  appendOutbox(db, {
    storeId: STORE,
    kind,
    recordId,
    changes,
    base: {},
    baseUpdatedAt: null,
    now: NOW,
  });
}

describe('one record', () => {
  it('shows the server copy with the edits on top, and the server copy again once they are gone', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    edit(db, test.id, { title: 'Mine' });
    rebaseRecord(db, STORE, 'test', test.id, NOW);
    expect(cachedTest(db, STORE, test.id)?.title).toBe('Mine');
    // The server's record is kept under the edit, so it can come back.
    expect(serverTest(db, STORE, test.id)?.title).toBe('Server');

    db.prepare('DELETE FROM user.outbox').run();
    rebaseRecord(db, STORE, 'test', test.id, NOW);
    expect(cachedTest(db, STORE, test.id)?.title).toBe('Server');
    expect(serverCopy(db, STORE, 'test', test.id)).toBeUndefined();
  });

  it('is idempotent', () => {
    const db = outboxDb();
    const campaign = makeCampaign(1, 'Spring');
    cache(db, { campaigns: [campaign] });
    edit(db, campaign.id, { name: 'Renamed' }, 'campaign');
    rebaseRecord(db, STORE, 'campaign', campaign.id, NOW);
    rebaseRecord(db, STORE, 'campaign', campaign.id, NOW);
    expect(cachedCampaign(db, STORE, campaign.id)?.name).toBe('Renamed');
  });
});

describe('after a pull', () => {
  it('a pulled test with unsent edits becomes the server copy; the edits go on top again', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    edit(db, test.id, { title: 'Mine' });
    rebaseRecord(db, STORE, 'test', test.id, NOW);
    // The pull writes what the store holds now (someone changed the priority)...
    const pulled = { ...test, priority: 'high' };
    cache(db, { tests: [pulled] });
    expect(cachedTest(db, STORE, test.id)?.title).toBe('Server');
    rebasePulledTests(db, STORE, [pulled], NOW);
    // ...and the local copy is theirs plus mine.
    expect(cachedTest(db, STORE, test.id)).toMatchObject({ title: 'Mine', priority: 'high' });
    expect(serverTest(db, STORE, test.id)).toMatchObject({ title: 'Server', priority: 'high' });
  });

  it('pending campaign edits and audiences created here come back after the lists are replaced', () => {
    const db = outboxDb();
    const campaign = makeCampaign(1, 'Spring');
    cache(db, { campaigns: [campaign] });
    edit(db, campaign.id, { goal: 'Mine' }, 'campaign');
    const local = customAudience(9, 'Made offline');
    appendOutbox(db, {
      storeId: STORE,
      kind: 'audience',
      recordId: local.id,
      changes: { name: local.name, rules: local.rules },
      base: {},
      baseUpdatedAt: null,
      now: NOW,
    });
    const pulled = { ...campaign, objective: 'Theirs' };
    cache(db, { campaigns: [pulled], audiences: [] });
    rebasePulledLists(db, STORE, [pulled], NOW);
    expect(cachedCampaign(db, STORE, campaign.id)).toMatchObject({
      goal: 'Mine',
      objective: 'Theirs',
    });
    expect(db.prepare('SELECT name FROM custom_audiences').all()).toEqual([
      { name: 'Made offline' },
    ]);
  });
});

describe('at core start', () => {
  it('repairs a crash between the two files: edits applied again, a stale server copy restored', () => {
    const db = outboxDb();
    const other = makeTest({ n: 2, title: 'Other server' });
    cache(db, { tests: [test, other] });
    // The outbox got the edit, the cache did not.
    edit(db, test.id, { title: 'Mine' });
    // The edit of the other test was sent and deleted, the cache not restored.
    saveServerCopy(db, STORE, 'test', other.id, other);
    db.prepare(`UPDATE tests SET title = 'Stale local' WHERE id = ?`).run(other.id);
    rebaseAll(db, null, NOW);
    expect(cachedTest(db, STORE, test.id)?.title).toBe('Mine');
    expect(serverCopy(db, STORE, 'test', other.id)).toBeUndefined();
  });
});

describe('a settled create', () => {
  function tagCreate(db: Db) {
    cache(db, { tests: [test] });
    appendOutbox(db, {
      storeId: STORE,
      kind: 'tag',
      recordId: 'local-tag',
      changes: { name: 'Made offline' },
      base: {},
      baseUpdatedAt: null,
      now: NOW,
    });
    rebaseRecord(db, STORE, 'tag', 'local-tag', NOW);
    appendOutbox(db, {
      storeId: STORE,
      kind: 'test',
      recordId: test.id,
      changes: { tagIds: ['local-tag'] },
      base: { tagIds: [] },
      baseUpdatedAt: test.updatedAt,
      state: 'waiting',
      now: NOW,
    });
    const record = pendingRecord(db, STORE, 'tag', 'local-tag');
    if (!record) throw new Error('no create');
    return record;
  }

  it("confirmed: the store's id replaces the local one in the edits and the local copy", () => {
    const db = outboxDb();
    const record = tagCreate(db);
    const server = tag(7, 'Made offline');
    settleCreate(db, record, { id: server.id }, NOW);
    expect(outboxRows(db, STORE).map((r) => [r.kind, r.state, r.changes])).toEqual([
      ['test', 'queued', { tagIds: [server.id] }],
    ]);
    expect(tagById(db, STORE, 'local-tag')).toBeNull();
    expect(tagById(db, STORE, server.id)).toEqual(server);
    expect(cachedTest(db, STORE, test.id)?.tags).toEqual([server]);
  });

  it('dropped: the edits go without it, and its local copy goes', () => {
    const db = outboxDb();
    settleCreate(db, tagCreate(db), null, NOW);
    expect(outboxRows(db, STORE).map((r) => [r.kind, r.state, r.changes])).toEqual([
      ['test', 'queued', { tagIds: [] }],
    ]);
    expect(tagById(db, STORE, 'local-tag')).toBeNull();
    expect(cachedTest(db, STORE, test.id)?.tags).toEqual([]);
  });
});
