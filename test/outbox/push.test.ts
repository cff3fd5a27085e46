// The pusher against the simulated store over HTTP: one record at a time, oldest first, each by its
// kind's sender; "later" keeps the record queued and stops the push, "no" fails that record only.
import { describe, expect, it } from 'vitest';
import type { Test } from '#shared/api/index';
import { WAITING_TO_BE_SENT } from '#core/outbox/model';
import { pushStore } from '#core/outbox/push';
import { recordCreate, recordEdit } from '#core/outbox/queue';
import { outboxRows, readOnlyReason, updateOutbox } from '#core/db/user/outbox';
import { pendingRecord, pendingRecords } from '#core/outbox/store';
import { NOW, STORE, servedStore, type ServedStore } from './support';

function editTitle(store: ServedStore, test: Test, title: string): void {
  recordEdit(
    store.db,
    {
      storeId: STORE,
      kind: 'test',
      recordId: test.id,
      server: test,
      changes: { title },
      base: { title: test.title },
      baseUpdatedAt: test.updatedAt,
    },
    NOW,
  );
}

function push(store: ServedStore, signal = new AbortController().signal) {
  let changes = 0;
  return pushStore({
    db: store.db,
    storeId: STORE,
    client: store.client,
    signal,
    now: () => NOW,
    changed: () => void (changes += 1),
  }).then((summary) => ({ summary, changes }));
}

/** The first tests of the store (a title may be edited in any status). */
function someTests(store: ServedStore, count: number): Test[] {
  const tests = store.snapshot().tests.slice(0, count);
  if (tests.length < count) throw new Error(`${count} tests needed`);
  return tests;
}

const serverOf = (store: ServedStore, id: string) =>
  store.snapshot().tests.find((t) => t.id === id);

describe('a push', () => {
  it('sends every record in the order of its first edit, and says what it did', async () => {
    const store = await servedStore();
    const [a, b] = someTests(store, 2);
    if (!a || !b) throw new Error('setup');
    editTitle(store, b, 'B first');
    editTitle(store, a, 'A second');
    editTitle(store, b, 'B again');
    const { summary, changes } = await push(store);
    expect(summary).toEqual({
      sent: 2,
      failed: 0,
      conflicts: 0,
      waiting: 0,
      requests: 4,
      stoppedBy: null,
      reached: true,
    });
    expect(changes).toBeGreaterThan(0);
    expect(store.writes().map((w) => [w.path, w.body])).toEqual([
      [`/tests/${b.id}`, { title: 'B again' }],
      [`/tests/${a.id}`, { title: 'A second' }],
    ]);
    expect(outboxRows(store.db, STORE)).toEqual([]);
  });

  it("sends a create first, then the edit that names it with the store's id, in the same push", async () => {
    const store = await servedStore();
    const [test] = someTests(store, 1);
    if (!test) throw new Error('setup');
    const local = '0c0a1000-0000-4000-8000-0000000000ff';
    recordCreate(
      store.db,
      { storeId: STORE, kind: 'tag', localId: local, changes: { name: 'New' } },
      NOW,
    );
    recordEdit(
      store.db,
      {
        storeId: STORE,
        kind: 'test',
        recordId: test.id,
        server: test,
        changes: { tagIds: [local] },
        base: { tagIds: test.tags.map((t) => t.id) },
        baseUpdatedAt: test.updatedAt,
      },
      NOW,
    );
    const { summary } = await push(store);
    expect(summary).toMatchObject({ sent: 2, waiting: 0 });
    const created = store.snapshot().tags.find((t) => t.name === 'New');
    expect(serverOf(store, test.id)?.tags.map((t) => t.id)).toEqual([created?.id]);
  });

  it('sends the tags an earlier edit names first, then that edit, in one push (retitled, then tagged)', async () => {
    const store = await servedStore();
    const [test, other] = someTests(store, 2);
    if (!test || !other) throw new Error('setup');
    // Offline: the test retitled first, then a new tag made and put on it; another test edited between.
    editTitle(store, test, 'Retitled');
    editTitle(store, other, 'Other');
    const local = '0c0a1000-0000-4000-8000-0000000000fe';
    recordCreate(
      store.db,
      { storeId: STORE, kind: 'tag', localId: local, changes: { name: 'Q4 ideas' } },
      NOW,
    );
    recordEdit(
      store.db,
      {
        storeId: STORE,
        kind: 'test',
        recordId: test.id,
        server: test,
        changes: { tagIds: [...test.tags.map((t) => t.id), local] },
        base: { tagIds: test.tags.map((t) => t.id) },
        baseUpdatedAt: test.updatedAt,
      },
      NOW,
    );
    const { summary } = await push(store);
    expect(summary).toMatchObject({ sent: 3, waiting: 0, failed: 0, reached: true });
    const created = store.snapshot().tags.find((t) => t.name === 'Q4 ideas');
    expect(created).toBeDefined();
    // The tag first, then the edit that needed it, then the rest in their order; each once.
    expect(store.writes().map((w) => w.path)).toEqual([
      '/tags',
      `/tests/${test.id}`,
      `/tests/${other.id}`,
    ]);
    expect(serverOf(store, test.id)).toMatchObject({ title: 'Retitled' });
    expect(serverOf(store, test.id)?.tags.map((t) => t.id)).toContain(created?.id);
    expect(outboxRows(store.db, STORE)).toEqual([]);
  });

  it('stops at the first "later" (the store offline): that record waits to be sent, the rest untouched', async () => {
    const store = await servedStore();
    const [a, b] = someTests(store, 2);
    if (!a || !b) throw new Error('setup');
    editTitle(store, a, 'A');
    editTitle(store, b, 'B');
    await store.setOffline(true);
    const { summary } = await push(store);
    expect(summary).toMatchObject({ sent: 0, failed: 0 });
    expect(summary.stoppedBy).not.toBeNull();
    const [first, second] = pendingRecords(store.db, STORE);
    expect(first).toMatchObject({ state: 'queued', note: WAITING_TO_BE_SENT });
    expect(first?.problem).not.toBeNull();
    expect(second).toMatchObject({ state: 'queued', note: null, problem: null });

    await store.setOffline(false);
    expect((await push(store)).summary).toMatchObject({ sent: 2, stoppedBy: null });
  });

  it('keeps the attempt of a create whose answer was lost, so the next push looks before repeating', async () => {
    const store = await servedStore();
    const local = '0a0d1e00-0000-4000-8000-0000000000ff';
    recordCreate(
      store.db,
      { storeId: STORE, kind: 'audience', localId: local, changes: { name: 'Lost', rules: [] } },
      NOW,
    );
    store.sim.loseAnswers(1, 'reset');
    expect((await push(store)).summary.stoppedBy).not.toBeNull();
    expect(pendingRecord(store.db, STORE, 'audience', local)).toMatchObject({
      state: 'queued',
      attemptedAt: NOW,
    });
    expect((await push(store)).summary).toMatchObject({ sent: 1 });
    expect(store.snapshot().customAudiences.filter((a) => a.name === 'Lost')).toHaveLength(1);
    expect(store.writes().filter((w) => w.path === '/custom-audiences')).toHaveLength(1);
  });

  it('fails each record a read-only key may not write, goes on, and marks the key read-only', async () => {
    const store = await servedStore({ readOnly: true });
    const [a, b] = someTests(store, 2);
    if (!a || !b) throw new Error('setup');
    editTitle(store, a, 'A');
    editTitle(store, b, 'B');
    const { summary } = await push(store);
    expect(summary).toMatchObject({ sent: 0, failed: 2, stoppedBy: null });
    expect(pendingRecords(store.db, STORE).map((r) => [r.state, r.problem?.status])).toEqual([
      ['failed', 403],
      ['failed', 403],
    ]);
    expect(readOnlyReason(store.db, STORE)).not.toBeNull();
  });

  it('tries no failed or conflicting record, and nothing once cancelled', async () => {
    const store = await servedStore();
    const [a, b] = someTests(store, 2);
    if (!a || !b) throw new Error('setup');
    editTitle(store, a, 'A');
    editTitle(store, b, 'B');
    const [first, second] = pendingRecords(store.db, STORE);
    updateOutbox(store.db, first?.seqs ?? [], { state: 'failed', now: NOW });
    updateOutbox(store.db, second?.seqs ?? [], { state: 'conflict', now: NOW });
    expect((await push(store)).summary).toMatchObject({ sent: 0, failed: 0, requests: 0 });

    updateOutbox(store.db, [...(first?.seqs ?? []), ...(second?.seqs ?? [])], {
      state: 'queued',
      now: NOW,
    });
    const cancelled = new AbortController();
    cancelled.abort();
    expect((await push(store, cancelled.signal)).summary).toMatchObject({ sent: 0, requests: 0 });
    expect(store.requests).toEqual([]);
  });
});
