// The campaign sender against the simulated store over HTTP: compared with GET /campaigns/active (listed
// once per push), only what differs is sent; a change made elsewhere is a conflict; a campaign that left
// the active list is held until the user sends it anyway.
import { describe, expect, it } from 'vitest';
import type { Campaign } from '#shared/api/index';
import { cachedCampaign } from '#core/db/cache/local-copies';
import { recordEdit } from '#core/outbox/queue';
import { sendCampaign } from '#core/outbox/kinds/campaign';
import { GONE_NOTE } from '#core/outbox/model';
import { updateOutbox, outboxRows } from '#core/db/user/outbox';
import { pendingRecord } from '#core/outbox/store';
import { NOW, STORE, cache, servedStore, type ServedStore } from '../support';

function edit(store: ServedStore, campaign: Campaign, changes: Record<string, unknown>): void {
  recordEdit(
    store.db,
    {
      storeId: STORE,
      kind: 'campaign',
      recordId: campaign.id,
      server: campaign,
      changes,
      base: Object.fromEntries(
        Object.keys(changes).map((f) => [f, (campaign as Record<string, unknown>)[f] ?? null]),
      ),
      baseUpdatedAt: null,
    },
    NOW,
  );
}

function pending(store: ServedStore, campaign: Campaign) {
  const record = pendingRecord(store.db, STORE, 'campaign', campaign.id);
  if (!record) throw new Error('nothing pending');
  return record;
}

function campaigns(store: ServedStore) {
  const all = store.snapshot().campaigns;
  const active = all.filter((c) => c.status === 'active');
  const [first, second] = active;
  const inactive = all.find((c) => c.status !== 'active');
  if (!first || !second || !inactive) throw new Error('two active campaigns and another needed');
  return { active, first, second, inactive };
}

const serverOf = (store: ServedStore, id: string) =>
  store.snapshot().campaigns.find((c) => c.id === id);

describe('sending a campaign edit', () => {
  it('lists the active campaigns once per push, sends what differs, null clearing, and caches the result', async () => {
    const store = await servedStore();
    const { first, second } = campaigns(store);
    edit(store, first, { name: 'Renamed', goal: null, objective: first.objective });
    edit(store, second, { objective: 'Grow' });
    const ctx = store.send();
    expect(await sendCampaign(ctx, pending(store, first))).toBe('sent');
    expect(await sendCampaign(ctx, pending(store, second))).toBe('sent');
    expect(store.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /campaigns/active',
      `PATCH /campaigns/${first.id}`,
      `PATCH /campaigns/${second.id}`,
    ]);
    expect(ctx.counts.requests).toBe(3);
    expect(store.writes()[0]?.body).toEqual(
      first.goal === null ? { name: 'Renamed' } : { name: 'Renamed', goal: null },
    );
    expect(serverOf(store, first.id)).toMatchObject({ name: 'Renamed', goal: null });
    expect(cachedCampaign(store.db, STORE, first.id)?.name).toBe('Renamed');
    expect(outboxRows(store.db, STORE)).toEqual([]);
  });

  it('holds a field changed in the store too as a conflict, and sends nothing', async () => {
    const store = await servedStore();
    const { first } = campaigns(store);
    edit(store, first, { goal: 'Mine' });
    await store.elsewhere('PATCH', `/campaigns/${first.id}`, { goal: 'Theirs' });
    expect(await sendCampaign(store.send(), pending(store, first))).toBe('conflict');
    expect(store.writes()).toEqual([]);
    expect(pending(store, first)).toMatchObject({
      state: 'conflict',
      conflict: { fields: { goal: { mine: 'Mine', theirs: 'Theirs' } }, gone: false },
    });
    expect(cachedCampaign(store.db, STORE, first.id)?.goal).toBe('Mine');
  });

  it('holds a campaign no longer active (it cannot be checked); sent anyway once the user says so', async () => {
    const store = await servedStore();
    const { active, inactive } = campaigns(store);
    // Edited while it was still listed as active.
    cache(store.db, { campaigns: [...active, inactive] });
    edit(store, inactive, { objective: 'Mine' });
    expect(await sendCampaign(store.send(), pending(store, inactive))).toBe('conflict');
    expect(pending(store, inactive)).toMatchObject({
      state: 'conflict',
      note: GONE_NOTE,
      conflict: { gone: true },
    });
    expect(store.writes()).toEqual([]);

    updateOutbox(store.db, pending(store, inactive).seqs, {
      state: 'queued',
      conflict: null,
      forceSend: true,
      now: NOW,
    });
    expect(await sendCampaign(store.send(), pending(store, inactive))).toBe('sent');
    expect(store.writes().map((w) => w.body)).toEqual([{ objective: 'Mine' }]);
    expect(serverOf(store, inactive.id)?.objective).toBe('Mine');
  });
});
