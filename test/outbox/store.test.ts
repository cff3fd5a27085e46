// The outbox's storage in the user's file, on real SQLite files: rows in and out, a record's rows merged
// and rewritten, a create's id remapped, what may be sent, counts, server copies and the key's read-only mark.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '#core/db/open';
import {
  appendOutbox,
  clearReadOnly,
  deleteOutbox,
  deleteServerCopy,
  deleteStoreOutbox,
  markReadOnly,
  orphanServerCopies,
  outboxCounts,
  outboxRow,
  outboxRows,
  pendingIds,
  readOnlyReason,
  saveServerCopy,
  serverCopy,
  updateOutbox,
  type NewOutboxRow,
} from '#core/db/user/outbox';
import {
  hasSendable,
  pendingRecord,
  pendingRecords,
  remapCreatedId,
  rewriteRecord,
} from '#core/outbox/store';
import type { Db } from '#core/db/types';
import { NOW, STORE, outboxDb } from './support';

function append(db: Db, fields: Partial<NewOutboxRow> = {}): number {
  return appendOutbox(db, {
    storeId: STORE,
    kind: 'test',
    recordId: 't1',
    changes: { title: 'Mine' },
    base: { title: 'Server' },
    baseUpdatedAt: '2026-02-01T00:00:00Z',
    now: NOW,
    ...fields,
  });
}

describe('rows', () => {
  it('keeps every column of an edit, oldest first, and reads one by its seq', () => {
    const db = outboxDb();
    const first = append(db, { changes: { title: 'A', tagIds: ['x'] } });
    const second = append(db, { kind: 'campaign', recordId: 'c1', baseUpdatedAt: null });
    const rows = outboxRows(db, STORE);
    expect(rows.map((r) => r.seq)).toEqual([first, second]);
    expect(rows[0]).toMatchObject({
      storeId: STORE,
      kind: 'test',
      recordId: 't1',
      changes: { title: 'A', tagIds: ['x'] },
      base: { title: 'Server' },
      state: 'queued',
      attemptedAt: null,
      forceSend: false,
      conflict: null,
      createdAt: NOW,
    });
    expect(outboxRow(db, second)?.kind).toBe('campaign');
    expect(outboxRow(db, 999)).toBeNull();
    expect(outboxRows(db, 'another store')).toEqual([]);
    expect(outboxRows(db, null)).toHaveLength(2);
  });

  it('changes only the columns a patch names, and deletes by seq', () => {
    const db = outboxDb();
    const seq = append(db);
    const problem = { type: 'about:blank', title: 'No', status: 400, detail: 'Refused' };
    updateOutbox(db, [seq], { state: 'failed', problem, now: 'later' });
    expect(outboxRow(db, seq)).toMatchObject({
      state: 'failed',
      problem,
      changes: { title: 'Mine' },
      note: null,
      updatedAt: 'later',
    });
    updateOutbox(db, [seq], { problem: null, forceSend: true, attemptedAt: 'then', now: 'later' });
    expect(outboxRow(db, seq)).toMatchObject({
      state: 'failed',
      problem: null,
      forceSend: true,
      attemptedAt: 'then',
    });
    deleteOutbox(db, [seq]);
    expect(outboxRows(db, STORE)).toEqual([]);
  });
});

describe('records', () => {
  it("merges a record's rows, and knows the ids of a kind with pending rows", () => {
    const db = outboxDb();
    append(db, { changes: { title: 'A' } });
    append(db, { changes: { impact: 2 }, base: { impact: 1 } });
    append(db, { kind: 'tag', recordId: 'local-tag', changes: { name: 'New' }, base: {} });
    expect(pendingRecord(db, STORE, 'test', 't1')?.changes).toEqual({ title: 'A', impact: 2 });
    expect(pendingRecord(db, STORE, 'test', 'other')).toBeNull();
    expect(pendingRecords(db, STORE).map((r) => r.recordId)).toEqual(['t1', 'local-tag']);
    expect([...pendingIds(db, STORE, 'tag')]).toEqual(['local-tag']);
  });

  it('rewrites a record as its first row holding the given content, or deletes it', () => {
    const db = outboxDb();
    const keep = append(db, { changes: { title: 'A' } });
    append(db, { changes: { impact: 2 } });
    const record = pendingRecord(db, STORE, 'test', 't1');
    if (!record) throw new Error('no record');
    rewriteRecord(db, record, { changes: record.changes, state: 'conflict' }, NOW);
    expect(outboxRows(db, STORE).map((r) => [r.seq, r.state, r.changes])).toEqual([
      [keep, 'conflict', { title: 'A', impact: 2 }],
    ]);
    rewriteRecord(db, { seqs: [keep] }, null, NOW);
    expect(outboxRows(db, STORE)).toEqual([]);
  });

  it('may send a store that has a queued, interrupted or waiting record, not one only failed or held', () => {
    const db = outboxDb();
    expect(hasSendable(db, STORE)).toBe(false);
    const seq = append(db, { state: 'failed' });
    expect(hasSendable(db, STORE)).toBe(false);
    // A new row of a record held as a conflict does not make it sendable: the record is held.
    append(db, { kind: 'campaign', recordId: 'c1', state: 'conflict' });
    append(db, { kind: 'campaign', recordId: 'c1', state: 'queued' });
    expect(hasSendable(db, STORE)).toBe(false);
    updateOutbox(db, [seq], { state: 'waiting', now: NOW });
    expect(hasSendable(db, STORE)).toBe(true);
  });

  it("gives the edits naming a created tag the store's id, and says which tests they change", () => {
    const db = outboxDb();
    append(db, { recordId: 't1', changes: { tagIds: ['local', 'kept'] }, state: 'waiting' });
    append(db, { recordId: 't2', changes: { title: 'x' } });
    append(db, { recordId: 't3', changes: { customAudienceIds: ['local'] } });
    const touched = remapCreatedId(db, STORE, 'tag', 'local', 'server', NOW);
    expect([...touched]).toEqual(['t1']);
    expect(pendingRecord(db, STORE, 'test', 't1')).toMatchObject({
      changes: { tagIds: ['server', 'kept'] },
      state: 'queued',
    });
    expect(pendingRecord(db, STORE, 'test', 't3')?.changes).toEqual({
      customAudienceIds: ['local'],
    });
  });

  it("counts a store's pending, failed and conflicting records, and forgets a removed store's", () => {
    const db = outboxDb();
    append(db, { recordId: 't1' });
    append(db, { recordId: 't1' });
    append(db, { recordId: 't2', state: 'failed' });
    append(db, { recordId: 't3', state: 'conflict' });
    saveServerCopy(db, STORE, 'test', 't1', { id: 't1' });
    markReadOnly(db, STORE, 'Forbidden', NOW);
    expect(outboxCounts(db, STORE)).toEqual({ pending: 3, failed: 1, conflicts: 1 });
    deleteStoreOutbox(db, STORE);
    expect(outboxCounts(db, STORE)).toEqual({ pending: 0, failed: 0, conflicts: 0 });
    expect(serverCopy(db, STORE, 'test', 't1')).toBeUndefined();
    expect(readOnlyReason(db, STORE)).toBeNull();
  });
});

describe('server copies', () => {
  it('keeps the server record under pending edits, and finds copies no edit needs any more', () => {
    const db = outboxDb();
    append(db, { recordId: 't1' });
    saveServerCopy(db, STORE, 'test', 't1', { id: 't1', title: 'Server' });
    saveServerCopy(db, STORE, 'campaign', 'c1', { id: 'c1' });
    expect(serverCopy(db, STORE, 'test', 't1')).toEqual({ id: 't1', title: 'Server' });
    expect(orphanServerCopies(db)).toEqual([{ storeId: STORE, kind: 'campaign', recordId: 'c1' }]);
    deleteServerCopy(db, STORE, 'campaign', 'c1');
    expect(orphanServerCopies(db)).toEqual([]);
  });
});

describe("the store's key", () => {
  it('is marked read-only with the reason, until a write works or the key changes', () => {
    const db = outboxDb();
    expect(readOnlyReason(db, STORE)).toBeNull();
    markReadOnly(db, STORE, 'Forbidden: read-only key', NOW);
    expect(readOnlyReason(db, STORE)).toBe('Forbidden: read-only key');
    clearReadOnly(db, STORE);
    expect(readOnlyReason(db, STORE)).toBeNull();
  });
});

describe('a cache opened without the user file', () => {
  it('has an empty outbox and no read-only mark', () => {
    const dir = mkdtempSync(join(tmpdir(), 'splitbook-outbox-bare-'));
    const db = openDatabase(join(dir, 'splitbook.db'));
    try {
      expect(outboxRows(db, null)).toEqual([]);
      expect(hasSendable(db, STORE)).toBe(false);
      expect(outboxCounts(db, STORE)).toEqual({ pending: 0, failed: 0, conflicts: 0 });
      expect(readOnlyReason(db, STORE)).toBeNull();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
