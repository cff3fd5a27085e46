// The tag sender against the simulated store over HTTP: a tag created here is sent once, its id given to
// the edits naming it; after a lost answer it is recognised by a synced test or its 409, never guessed. A
// 409 names the store's one tag of that name (names are unique whatever their case): its id is read from
// the tests the store lists, so an old backup's tag sent since goes on with the edits using it (issue 46, 7).
import { describe, expect, it } from 'vitest';
import { tagById } from '#core/db/cache/local-copies';
import { TAG_ID_UNKNOWN } from '#core/outbox/model';
import { recordCreate, recordEdit } from '#core/outbox/queue';
import { sendTag } from '#core/outbox/kinds/tag';
import { outboxRows, updateOutbox } from '#core/db/user/outbox';
import { pendingRecord } from '#core/outbox/store';
import { LAUNCHED, NOW, STORE, servedStore, testWith, type ServedStore } from '../support';

const LOCAL = '0c0a1000-0000-4000-8000-00000000000a';

function create(store: ServedStore, name: string, attempted = false): void {
  recordCreate(store.db, { storeId: STORE, kind: 'tag', localId: LOCAL, changes: { name } }, NOW);
  if (attempted) updateOutbox(store.db, pending(store).seqs, { attemptedAt: NOW, now: NOW });
}

function pending(store: ServedStore) {
  const record = pendingRecord(store.db, STORE, 'tag', LOCAL);
  if (!record) throw new Error('no pending tag');
  return record;
}

describe('sending a tag', () => {
  it("creates it once and gives its id to the edits that named it; the cache keeps the store's id", async () => {
    const store = await servedStore();
    const test = testWith(store, LAUNCHED);
    create(store, 'Made offline');
    recordEdit(
      store.db,
      {
        storeId: STORE,
        kind: 'test',
        recordId: test.id,
        server: test,
        changes: { tagIds: [LOCAL] },
        base: { tagIds: test.tags.map((t) => t.id) },
        baseUpdatedAt: test.updatedAt,
      },
      NOW,
    );
    updateOutbox(
      store.db,
      outboxRows(store.db, STORE)
        .slice(1)
        .map((r) => r.seq),
      {
        state: 'waiting',
        now: NOW,
      },
    );
    expect(await sendTag(store.send(), pending(store))).toBe('sent');
    const created = store.snapshot().tags.filter((t) => t.name === 'Made offline');
    expect(created).toHaveLength(1);
    const id = created[0]?.id ?? '';
    expect(store.writes()).toEqual([
      { method: 'POST', path: '/tags', body: { name: 'Made offline' } },
    ]);
    expect(outboxRows(store.db, STORE).map((r) => [r.kind, r.state, r.changes])).toEqual([
      ['test', 'queued', { tagIds: [id] }],
    ]);
    expect(tagById(store.db, STORE, LOCAL)).toBeNull();
    expect(tagById(store.db, STORE, id)?.name).toBe('Made offline');
  });

  it("fails, saying what to do, on the store's 409 for a tag never sent before that no listed test carries", async () => {
    const store = await servedStore();
    await store.elsewhere('POST', '/tags', { name: 'Taken' });
    create(store, 'taken');
    expect(await sendTag(store.send(), pending(store))).toBe('failed');
    expect(pending(store)).toMatchObject({
      state: 'failed',
      problem: { status: 409, title: 'The store already has a tag named “taken”' },
    });
    expect(pending(store).problem?.detail).toMatch(
      /none of the store's tests carries this one, so Splitbook cannot learn its id .*rename this tag, or discard it/,
    );
    // Every page of the listing was read for it.
    expect(
      store.requests.filter((r) => r.method === 'GET' && r.path === '/tests').length,
    ).toBeGreaterThan(0);
  });

  for (const attempted of [false, true]) {
    it(`takes the id of the store's tag of that name from a listed test on a 409 (${attempted ? 'a tag sent before, its answer lost' : "an old backup's tag, sent since"}), and the edits using it go on`, async () => {
      const store = await servedStore();
      const test = testWith(store, LAUNCHED);
      // The store made the tag and put it on a test since the cache was synced.
      const made = (await (
        await store.elsewhere('POST', '/tags', { name: 'Seasonal' })
      ).json()) as { id: string };
      await store.elsewhere('PATCH', `/tests/${test.id}`, {
        tagIds: [...test.tags.map((t) => t.id), made.id],
      });
      create(store, 'SEASONAL', attempted);
      recordEdit(
        store.db,
        {
          storeId: STORE,
          kind: 'test',
          recordId: test.id,
          server: test,
          changes: { tagIds: [...test.tags.map((t) => t.id), LOCAL] },
          base: { tagIds: test.tags.map((t) => t.id) },
          baseUpdatedAt: test.updatedAt,
        },
        NOW,
      );
      expect(await sendTag(store.send(), pending(store))).toBe('sent');
      expect(store.snapshot().tags.filter((t) => t.name.toLowerCase() === 'seasonal')).toHaveLength(
        1,
      );
      expect(outboxRows(store.db, STORE).map((r) => [r.kind, r.state, r.changes])).toEqual([
        ['test', 'queued', { tagIds: [...test.tags.map((t) => t.id), made.id] }],
      ]);
      expect(tagById(store.db, STORE, made.id)?.name).toBe('SEASONAL');
    });
  }

  it('waits, saying why, when a tag sent before gets a 409 and no synced test shows its id', async () => {
    const store = await servedStore();
    // The first attempt went through; its answer was lost.
    await store.elsewhere('POST', '/tags', { name: 'Lost answer' });
    create(store, 'Lost answer', true);
    expect(await sendTag(store.send(), pending(store))).toBe('waiting');
    expect(pending(store)).toMatchObject({ state: 'waiting', note: TAG_ID_UNKNOWN });
    // Waiting, it is not sent again.
    expect(await sendTag(store.send(), pending(store))).toBe('waiting');
    expect(store.writes()).toHaveLength(1);
    expect(store.snapshot().tags.filter((t) => t.name === 'Lost answer')).toHaveLength(1);
  });

  it('takes the id a synced test shows for a tag sent before, with no request', async () => {
    const store = await servedStore();
    const seen = store.snapshot().tests.flatMap((t) => t.tags)[0];
    if (!seen) throw new Error('a tagged test needed');
    create(store, seen.name.toUpperCase(), true);
    const ctx = store.send();
    expect(await sendTag(ctx, pending(store))).toBe('sent');
    expect(ctx.counts.requests).toBe(0);
    expect(store.requests).toEqual([]);
    expect(outboxRows(store.db, STORE)).toEqual([]);
  });
});
