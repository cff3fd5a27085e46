// The test sender against the simulated store over HTTP: the test is read again first, only what differs
// is sent, a change made in the store meanwhile is merged or held, a launch meanwhile fails it unsent.
import { describe, expect, it } from 'vitest';
import type { Test } from '#shared/api/index';
import { cachedTest } from '#core/db/cache/local-copies';
import { recordCreate, recordEdit } from '#core/outbox/queue';
import { sendTest } from '#core/outbox/kinds/test';
import { outboxRows, serverCopy } from '#core/db/user/outbox';
import { pendingRecord } from '#core/outbox/store';
import { DRAFT, LAUNCHED, NOW, STORE, servedStore, testWith, type ServedStore } from '../support';

function edit(store: ServedStore, test: Test, changes: Record<string, unknown>): void {
  recordEdit(
    store.db,
    {
      storeId: STORE,
      kind: 'test',
      recordId: test.id,
      server: test,
      changes,
      base: Object.fromEntries(
        Object.keys(changes).map((f) => [f, (test as Record<string, unknown>)[f] ?? null]),
      ),
      baseUpdatedAt: test.updatedAt,
    },
    NOW,
  );
}

async function send(store: ServedStore, test: Test) {
  const record = pendingRecord(store.db, STORE, 'test', test.id);
  if (!record) throw new Error('nothing pending');
  const ctx = store.send();
  const outcome = await sendTest(ctx, record);
  return { outcome, requests: ctx.counts.requests };
}

const live = (store: ServedStore) => testWith(store, LAUNCHED);
const serverOf = (store: ServedStore, id: string) =>
  store.snapshot().tests.find((t) => t.id === id);

describe('sending a test edit', () => {
  it("reads the test again, sends only what differs in one PATCH, then caches the store's record", async () => {
    const store = await servedStore();
    const test = live(store);
    edit(store, test, { title: 'Mine', impact: test.impact });
    const { outcome, requests } = await send(store, test);
    expect(outcome).toBe('sent');
    expect(requests).toBe(2);
    expect(store.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /tests/${test.id}`,
      `PATCH /tests/${test.id}`,
    ]);
    expect(store.writes()[0]?.body).toEqual({ title: 'Mine' });
    expect(serverOf(store, test.id)?.title).toBe('Mine');
    expect(outboxRows(store.db, STORE)).toEqual([]);
    expect(serverCopy(store.db, STORE, 'test', test.id)).toBeUndefined();
    expect(cachedTest(store.db, STORE, test.id)?.title).toBe('Mine');
  });

  it('sends two edits of one test made before a sync as one PATCH, the later value of a field winning', async () => {
    const store = await servedStore();
    const test = live(store);
    edit(store, test, { title: 'First thought' });
    edit(store, { ...test, title: 'First thought' }, { title: 'Second thought', priority: 'high' });
    const { outcome, requests } = await send(store, test);
    expect(outcome).toBe('sent');
    expect(requests).toBe(2);
    expect(store.writes().map((w) => w.body)).toEqual([
      { title: 'Second thought', priority: 'high' },
    ]);
    expect(serverOf(store, test.id)).toMatchObject({ title: 'Second thought', priority: 'high' });
    expect(outboxRows(store.db, STORE)).toEqual([]);
  });

  it('takes a field only the store changed meanwhile, and sends mine beside it', async () => {
    const store = await servedStore();
    const test = live(store);
    edit(store, test, { title: 'Mine' });
    store.sim.touchTest('Acme', test.id, { priority: 'high' });
    expect(await send(store, test)).toMatchObject({ outcome: 'sent' });
    expect(store.writes().map((w) => w.body)).toEqual([{ title: 'Mine' }]);
    expect(cachedTest(store.db, STORE, test.id)).toMatchObject({ title: 'Mine', priority: 'high' });
  });

  it('holds a field both changed as a conflict, sends nothing, and shows mine over theirs', async () => {
    const store = await servedStore();
    const test = live(store);
    edit(store, test, { title: 'Mine' });
    store.sim.touchTest('Acme', test.id, { title: 'Theirs', priority: 'high' });
    expect(await send(store, test)).toMatchObject({ outcome: 'conflict' });
    expect(store.writes()).toEqual([]);
    expect(pendingRecord(store.db, STORE, 'test', test.id)).toMatchObject({
      state: 'conflict',
      conflict: { fields: { title: { base: test.title, mine: 'Mine', theirs: 'Theirs' } } },
    });
    expect(serverCopy(store.db, STORE, 'test', test.id)).toMatchObject({ title: 'Theirs' });
    expect(cachedTest(store.db, STORE, test.id)).toMatchObject({ title: 'Mine', priority: 'high' });
  });

  it('sends nothing when the store already holds the change (a PATCH whose answer was lost)', async () => {
    const store = await servedStore();
    const test = live(store);
    edit(store, test, { title: 'Mine' });
    store.sim.touchTest('Acme', test.id, { title: 'Mine' });
    expect(await send(store, test)).toEqual({ outcome: 'sent', requests: 1 });
    expect(store.writes()).toEqual([]);
    expect(outboxRows(store.db, STORE)).toEqual([]);
  });

  it('fails before sending when the test launched meanwhile and the field is now locked', async () => {
    const store = await servedStore();
    const draft = testWith(store, DRAFT);
    edit(store, draft, { endWhenSignificant: !draft.endWhenSignificant });
    store.sim.touchTest('Acme', draft.id, { status: 'active' });
    expect(await send(store, draft)).toMatchObject({ outcome: 'failed' });
    expect(store.writes()).toEqual([]);
    const record = pendingRecord(store.db, STORE, 'test', draft.id);
    expect(record?.state).toBe('failed');
    expect(record?.problem).toMatchObject({ status: 422, title: 'Field is locked' });
    expect(record?.problem?.detail).toContain('locked after launch');
  });

  it('fails when the test is no longer in the store', async () => {
    const store = await servedStore();
    const test = live(store);
    edit(store, test, { title: 'Mine' });
    store.sim.removeTest('Acme', test.id);
    expect(await send(store, test)).toMatchObject({ outcome: 'failed' });
    expect(pendingRecord(store.db, STORE, 'test', test.id)?.problem).toMatchObject({
      status: 404,
      title: 'The test is no longer in the store',
    });
  });

  it('waits, with no request, while it names a tag not created in the store yet', async () => {
    const store = await servedStore();
    const test = live(store);
    const localId = '9a0c2c0e-0000-4000-8000-000000000001';
    recordCreate(
      store.db,
      { storeId: STORE, kind: 'tag', localId, changes: { name: 'Made offline' } },
      NOW,
    );
    edit(store, test, { tagIds: [...test.tags.map((t) => t.id), localId] });
    expect(await send(store, test)).toEqual({ outcome: 'waiting', requests: 0 });
    const record = pendingRecord(store.db, STORE, 'test', test.id);
    expect(record?.state).toBe('waiting');
    expect(record?.note).toContain("'Made offline'");
    expect(store.requests).toEqual([]);
  });
});
