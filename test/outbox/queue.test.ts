// The user's side of the outbox, on real SQLite files: each step leaves the outbox and the local copy
// consistent (an edit recorded with its base, a create with its local id, retry, discard, undo, resolve).
import { describe, expect, it } from 'vitest';
import type { Test } from '#shared/api/index';
import type { Db } from '#core/db/types';
import { cachedTest, tagById } from '#core/db/cache/local-copies';
import { serverTest } from '#core/outbox/kinds/test';
import {
  discardRecord,
  recordCreate,
  recordEdit,
  renameCreatedTag,
  resolveRecord,
  retryRecord,
  undoRow,
} from '#core/outbox/queue';
import { outboxRows, serverCopy, updateOutbox } from '#core/db/user/outbox';
import { pendingRecord, rewriteRecord } from '#core/outbox/store';
import { heldInConflict } from '#core/outbox/model';
import { makeTest } from '../db/fixtures';
import { NOW, STORE, cache, outboxDb } from './support';

const test = makeTest({ n: 1, title: 'Server', impact: 1 });

function editTitle(db: Db, title: string, server: Test = test): void {
  recordEdit(
    db,
    {
      storeId: STORE,
      kind: 'test',
      recordId: test.id,
      server,
      changes: { title },
      base: { title: server.title },
      baseUpdatedAt: server.updatedAt,
    },
    NOW,
  );
}

function record(db: Db, kind: 'test' | 'tag' = 'test', id = test.id) {
  const found = pendingRecord(db, STORE, kind, id);
  if (!found) throw new Error(`no pending ${kind}`);
  return found;
}

describe('an edit', () => {
  it('keeps the server record under it and shows the local copy at once', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    editTitle(db, 'Mine');
    expect(serverCopy(db, STORE, 'test', test.id)).toMatchObject({ title: 'Server' });
    expect(cachedTest(db, STORE, test.id)?.title).toBe('Mine');
    expect(record(db)).toMatchObject({ state: 'queued', base: { title: 'Server' } });
  });

  it('puts a failed record back in the queue ("change it and retry")', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    editTitle(db, 'Refused');
    const problem = { type: 'about:blank', title: 'No', status: 400, detail: 'Refused' };
    updateOutbox(db, record(db).seqs, { state: 'failed', problem, now: NOW });
    editTitle(db, 'Better');
    expect(record(db)).toMatchObject({
      state: 'queued',
      problem: null,
      changes: { title: 'Better' },
    });
  });

  it('joins a record held as a conflict: it stays held', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    editTitle(db, 'Mine');
    const held = record(db);
    rewriteRecord(
      db,
      held,
      heldInConflict(held, { fields: {}, theirsUpdatedAt: null, gone: false }),
      NOW,
    );
    editTitle(db, 'Mine again');
    expect(outboxRows(db, STORE).map((r) => r.state)).toEqual(['conflict', 'conflict']);
  });
});

describe('a create', () => {
  it('appears at once under its local id', () => {
    const db = outboxDb();
    recordCreate(
      db,
      { storeId: STORE, kind: 'tag', localId: 'local-tag', changes: { name: 'New' } },
      NOW,
    );
    expect(tagById(db, STORE, 'local-tag')).toEqual({ id: 'local-tag', name: 'New' });
    expect(record(db, 'tag', 'local-tag').changes).toEqual({ name: 'New' });
  });

  it('discarded, it goes, and the edits naming it go without it', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    recordCreate(
      db,
      { storeId: STORE, kind: 'tag', localId: 'local-tag', changes: { name: 'New' } },
      NOW,
    );
    recordEdit(
      db,
      {
        storeId: STORE,
        kind: 'test',
        recordId: test.id,
        server: test,
        changes: { tagIds: ['local-tag'] },
        base: { tagIds: [] },
        baseUpdatedAt: test.updatedAt,
      },
      NOW,
    );
    discardRecord(db, record(db, 'tag', 'local-tag'), NOW);
    expect(tagById(db, STORE, 'local-tag')).toBeNull();
    expect(outboxRows(db, STORE).map((r) => [r.kind, r.changes])).toEqual([
      ['test', { tagIds: [] }],
    ]);
  });

  it('renamed while the store has certainly not received it; the tests using it show the new name', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    const localId = '0c0a1000-0000-4000-8000-0000000000aa';
    recordCreate(db, { storeId: STORE, kind: 'tag', localId, changes: { name: 'Old' } }, NOW);
    recordEdit(
      db,
      {
        storeId: STORE,
        kind: 'test',
        recordId: test.id,
        server: test,
        changes: { tagIds: [localId] },
        base: { tagIds: [] },
        baseUpdatedAt: test.updatedAt,
      },
      NOW,
    );
    expect(renameCreatedTag(db, STORE, localId, 'New', NOW)).toBe(true);
    expect(record(db, 'tag', localId).changes).toEqual({ name: 'New' });
    expect(tagById(db, STORE, localId)?.name).toBe('New');
    expect(cachedTest(db, STORE, test.id)?.tags.map((t) => t.name)).toEqual(['New']);
    // Once an attempt may have reached the store, the name stays.
    updateOutbox(db, record(db, 'tag', localId).seqs, { attemptedAt: NOW, now: NOW });
    expect(renameCreatedTag(db, STORE, localId, 'Newer', NOW)).toBe(false);
    expect(record(db, 'tag', localId).changes).toEqual({ name: 'New' });
  });

  it('undone by its one row, it is discarded the same way', () => {
    const db = outboxDb();
    recordCreate(
      db,
      { storeId: STORE, kind: 'tag', localId: 'local-tag', changes: { name: 'New' } },
      NOW,
    );
    const [row] = outboxRows(db, STORE);
    if (!row) throw new Error('no row');
    undoRow(db, row, NOW);
    expect(outboxRows(db, STORE)).toEqual([]);
    expect(tagById(db, STORE, 'local-tag')).toBeNull();
  });
});

describe("the user's decisions", () => {
  it('undo drops one edit; the earlier one still shows', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    editTitle(db, 'A');
    editTitle(db, 'B');
    const [, last] = outboxRows(db, STORE);
    if (!last) throw new Error('two rows expected');
    undoRow(db, last, NOW);
    expect(cachedTest(db, STORE, test.id)?.title).toBe('A');
  });

  it('discard drops the record and shows the server value again', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    editTitle(db, 'A');
    discardRecord(db, record(db), NOW);
    expect(outboxRows(db, STORE)).toEqual([]);
    expect(cachedTest(db, STORE, test.id)?.title).toBe('Server');
  });

  it('retry queues a failed record as it is', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    editTitle(db, 'A');
    updateOutbox(db, record(db).seqs, { state: 'failed', note: 'x', now: NOW });
    retryRecord(db, record(db), NOW);
    expect(record(db)).toMatchObject({ state: 'queued', note: null, changes: { title: 'A' } });
  });

  it('resolving the last field in conflict queues one row; theirs for every field shows theirs', () => {
    const db = outboxDb();
    cache(db, { tests: [test] });
    editTitle(db, 'A');
    editTitle(db, 'Mine');
    const theirs = { ...test, title: 'Theirs', updatedAt: '2026-02-02T00:00:00Z' };
    const conflict = {
      fields: { title: { base: 'Server', mine: 'Mine', theirs: 'Theirs' } },
      theirsUpdatedAt: theirs.updatedAt,
      gone: false,
    };
    const held = record(db);
    rewriteRecord(db, held, heldInConflict(held, conflict), NOW);

    resolveRecord(db, record(db), { field: 'title', choice: 'mine', value: undefined }, NOW);
    expect(outboxRows(db, STORE)).toHaveLength(1);
    expect(record(db)).toMatchObject({
      state: 'queued',
      changes: { title: 'Mine' },
      base: { title: 'Theirs' },
      baseUpdatedAt: theirs.updatedAt,
      conflict: null,
    });

    // Held again, and this time the user takes theirs: nothing is left to send.
    const again = record(db);
    rewriteRecord(db, again, heldInConflict(again, conflict), NOW);
    // The server copy a push saved when it found the conflict.
    db.prepare('UPDATE user.server_copies SET raw_json = ?').run(JSON.stringify(theirs));
    resolveRecord(db, record(db), { field: 'title', choice: 'theirs', value: undefined }, NOW);
    expect(outboxRows(db, STORE)).toEqual([]);
    expect(cachedTest(db, STORE, test.id)?.title).toBe('Theirs');
    expect(serverTest(db, STORE, test.id)?.title).toBe('Theirs');
  });
});
