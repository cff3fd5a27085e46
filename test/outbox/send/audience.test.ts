// The audience sender against the simulated store over HTTP: an audience created here is sent once, its
// id given to the edits naming it; after a lost answer it is looked up by name before being sent again.
import { describe, expect, it } from 'vitest';
import { audienceById } from '#core/db/cache/local-copies';
import { recordCreate, recordEdit } from '#core/outbox/queue';
import { sendAudience } from '#core/outbox/kinds/audience';
import { outboxRows, updateOutbox } from '#core/db/user/outbox';
import { pendingRecord } from '#core/outbox/store';
import { LAUNCHED, NOW, STORE, servedStore, testWith, type ServedStore } from '../support';

const LOCAL = '0a0d1e00-0000-4000-8000-00000000000a';
const RULES = [{ dimension: 'country', operator: 'in', values: ['DK'], selector: null }];

function create(store: ServedStore, name: string, attempted = false): void {
  recordCreate(
    store.db,
    { storeId: STORE, kind: 'audience', localId: LOCAL, changes: { name, rules: RULES } },
    NOW,
  );
  if (attempted) updateOutbox(store.db, pending(store).seqs, { attemptedAt: NOW, now: NOW });
}

function pending(store: ServedStore) {
  const record = pendingRecord(store.db, STORE, 'audience', LOCAL);
  if (!record) throw new Error('no pending audience');
  return record;
}

const named = (store: ServedStore, name: string) =>
  store.snapshot().customAudiences.filter((a) => a.name === name);

describe('sending an audience', () => {
  it('creates it with its rules and gives its id to the edits that named it', async () => {
    const store = await servedStore();
    const test = testWith(store, LAUNCHED);
    create(store, 'Danes');
    recordEdit(
      store.db,
      {
        storeId: STORE,
        kind: 'test',
        recordId: test.id,
        server: test,
        changes: { customAudienceIds: [LOCAL] },
        base: { customAudienceIds: test.customAudiences.map((a) => a.id) },
        baseUpdatedAt: test.updatedAt,
      },
      NOW,
    );
    expect(await sendAudience(store.send(), pending(store))).toBe('sent');
    const [created] = named(store, 'Danes');
    expect(created?.rules).toEqual(RULES);
    const id = created?.id ?? '';
    expect(outboxRows(store.db, STORE).map((r) => [r.kind, r.changes])).toEqual([
      ['test', { customAudienceIds: [id] }],
    ]);
    expect(audienceById(store.db, STORE, LOCAL)).toBeNull();
    expect(audienceById(store.db, STORE, id)?.name).toBe('Danes');
  });

  it('finds one sent before by its exact name instead of creating it twice', async () => {
    const store = await servedStore();
    await store.elsewhere('POST', '/custom-audiences', { name: 'Lost answer', rules: RULES });
    create(store, 'Lost answer', true);
    expect(await sendAudience(store.send(), pending(store))).toBe('sent');
    expect(store.writes()).toEqual([]);
    expect(named(store, 'Lost answer')).toHaveLength(1);
    expect(outboxRows(store.db, STORE)).toEqual([]);
  });

  it("fails with the store's words when it refuses the audience (a name taken meanwhile)", async () => {
    const store = await servedStore();
    await store.elsewhere('POST', '/custom-audiences', { name: 'Taken', rules: [] });
    create(store, 'Taken');
    expect(await sendAudience(store.send(), pending(store))).toBe('failed');
    expect(pending(store)).toMatchObject({ state: 'failed', problem: { status: 400 } });
    expect(named(store, 'Taken')).toHaveLength(1);
  });
});
