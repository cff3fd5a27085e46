// The outbox's model: rows merged into one record, what may be sent, mine against theirs, the local-id
// remap and the conflict's hold and resolution, each rule on plain data.
import { describe, expect, it } from 'vitest';
import { EDIT_STATES } from '#shared/contract/index';
import {
  collapse,
  CONFLICT_NOTE,
  GONE_NOTE,
  groupRecords,
  heldInConflict,
  isSendable,
  localIdsNamed,
  mergeWithTheirs,
  remapLocalId,
  resolvedConflict,
  type ConflictRecord,
  type OutboxRow,
  type PendingRecord,
} from '#core/outbox/model';
import { isUnsentCreate } from '#core/outbox/kinds/index';

let seq = 0;
function row(fields: Partial<OutboxRow> = {}): OutboxRow {
  seq += 1;
  return {
    seq,
    storeId: 's',
    kind: 'test',
    recordId: 't1',
    changes: {},
    base: {},
    baseUpdatedAt: '2026-01-01T00:00:00Z',
    state: 'queued',
    attemptedAt: null,
    forceSend: false,
    note: null,
    problem: null,
    conflict: null,
    createdAt: `2026-01-0${Math.min(seq, 9)}T00:00:00Z`,
    updatedAt: `2026-01-0${Math.min(seq, 9)}T00:00:00Z`,
    ...fields,
  };
}

function record(rows: OutboxRow[]): PendingRecord {
  const merged = collapse(rows);
  if (!merged) throw new Error('no rows');
  return merged;
}

describe("a record's rows merged into one", () => {
  it('later changes win field by field, and each field keeps the base of its first edit', () => {
    const merged = record([
      row({ changes: { title: 'A', impact: 2 }, base: { title: 'Server', impact: 1 } }),
      row({ changes: { title: 'B' }, base: { title: 'A' } }),
      row({ changes: { effort: 3 }, base: { effort: 5 }, baseUpdatedAt: 'later' }),
    ]);
    expect(merged.changes).toEqual({ title: 'B', impact: 2, effort: 3 });
    expect(merged.base).toEqual({ title: 'Server', impact: 1, effort: 5 });
    expect(merged.baseUpdatedAt).toBe('2026-01-01T00:00:00Z');
    expect(merged.seqs).toHaveLength(3);
  });

  it("takes the worst row's state, note and conflict, the first attempt and any forced send", () => {
    const conflict: ConflictRecord = { fields: {}, theirsUpdatedAt: null, gone: true };
    const merged = record([
      row({ state: 'queued', note: 'queued note' }),
      row({ state: 'conflict', note: 'held', conflict, attemptedAt: 'then' }),
      row({ state: 'waiting', forceSend: true, attemptedAt: 'later' }),
    ]);
    expect(merged.state).toBe('conflict');
    expect(merged.note).toBe('held');
    expect(merged.conflict).toEqual(conflict);
    expect(merged.attemptedAt).toBe('then');
    expect(merged.forceSend).toBe(true);
  });

  it('is nothing without rows', () => {
    expect(collapse([])).toBeNull();
  });

  it("groups rows by store, kind and record, in the order of each record's first row", () => {
    const rows = [
      row({ recordId: 'b' }),
      row({ recordId: 'a', kind: 'campaign' }),
      row({ recordId: 'b', changes: { title: 'x' } }),
      row({ recordId: 'a' }),
      row({ recordId: 'b', storeId: 'other' }),
    ];
    expect(groupRecords(rows).map((r) => [r.storeId, r.kind, r.recordId, r.seqs.length])).toEqual([
      ['s', 'test', 'b', 2],
      ['s', 'campaign', 'a', 1],
      ['s', 'test', 'a', 1],
      ['other', 'test', 'b', 1],
    ]);
  });
});

describe('what may be sent', () => {
  it('queued, interrupted and waiting records are tried; failed and conflicting ones wait for the user', () => {
    expect(EDIT_STATES.filter(isSendable)).toEqual(['queued', 'sending', 'waiting']);
  });
});

describe('a create the store has certainly not received', () => {
  it('is one never attempted or refused; one attempted without an answer may be in the store', () => {
    const tag = (fields: Partial<OutboxRow>) => record([row({ kind: 'tag', ...fields })]);
    expect(isUnsentCreate(tag({ state: 'queued' }))).toBe(true);
    expect(isUnsentCreate(tag({ state: 'failed', attemptedAt: 'then' }))).toBe(true);
    expect(isUnsentCreate(tag({ state: 'queued', attemptedAt: 'then' }))).toBe(false);
    expect(isUnsentCreate(tag({ state: 'sending', attemptedAt: 'then' }))).toBe(false);
    expect(isUnsentCreate(tag({ state: 'waiting', attemptedAt: 'then' }))).toBe(false);
    expect(isUnsentCreate(record([row({ kind: 'test' })]))).toBe(false);
  });
});

describe('mine against theirs', () => {
  const mine = {
    changes: { title: 'Mine', impact: 4, effort: 2, tagIds: ['a', 'b'] },
    base: { title: 'Base', impact: 1, effort: 1, tagIds: ['a'] },
  };
  const theirs: Record<string, unknown> = {
    title: 'Base', // untouched there: mine is sent
    impact: 3, // changed there too: a conflict
    effort: 2, // already what I want: left out
    tagIds: ['b', 'a'], // a set: the same in another order
  };

  it('sends what only I changed, leaves out what the store holds, and holds what both changed', () => {
    const { body, conflicts } = mergeWithTheirs(mine, (f) => theirs[f], false);
    expect(body).toEqual({ title: 'Mine' });
    expect(conflicts).toEqual({ impact: { base: 1, mine: 4, theirs: 3 } });
  });

  it('sends every differing field when mine is trusted (the record did not move, or the user chose mine)', () => {
    const { body, conflicts } = mergeWithTheirs(mine, (f) => theirs[f], true);
    expect(body).toEqual({ title: 'Mine', impact: 4 });
    expect(conflicts).toEqual({});
  });

  it('sends null to clear a field', () => {
    const { body } = mergeWithTheirs(
      { changes: { hypothesisDescription: null }, base: { hypothesisDescription: 'Why' } },
      () => 'Why',
      false,
    );
    expect(body).toEqual({ hypothesisDescription: null });
  });
});

describe("a create's local id in the edits that name it", () => {
  it("is replaced by the store's id, and an edit that waited for it goes back to the queue", () => {
    const waiting = row({
      changes: { tagIds: ['kept', 'local'], title: 'T' },
      state: 'waiting',
      note: 'Waits',
      problem: { type: 'x', title: 'x', status: 409, detail: 'x' },
    });
    expect(remapLocalId(waiting, 'tag', 'local', 'server')).toEqual({
      changes: { tagIds: ['kept', 'server'], title: 'T' },
      state: 'queued',
      note: null,
      problem: null,
    });
  });

  it('is taken out when the create is dropped; a queued edit keeps its state', () => {
    const queued = row({ changes: { customAudienceIds: ['local', 'other'] } });
    expect(remapLocalId(queued, 'audience', 'local', null)).toEqual({
      changes: { customAudienceIds: ['other'] },
    });
  });

  it('leaves rows that do not name it alone', () => {
    expect(remapLocalId(row({ changes: { tagIds: ['other'] } }), 'tag', 'local', 's')).toBeNull();
    expect(
      remapLocalId(row({ changes: { tagIds: ['local'] } }), 'audience', 'local', 's'),
    ).toBeNull();
    expect(
      remapLocalId(row({ kind: 'campaign', changes: { tagIds: ['local'] } }), 'tag', 'local', 's'),
    ).toBeNull();
  });

  it('finds the local ids a change names, tags and audiences alike', () => {
    expect(
      localIdsNamed(
        { tagIds: ['t-local', 't-server'], customAudienceIds: ['a-local'], title: 'x' },
        new Set(['t-local', 'a-local', 'unused']),
      ),
    ).toEqual(['t-local', 'a-local']);
  });
});

describe('holding and resolving a conflict', () => {
  const impact = { base: 1, mine: 4, theirs: 3 };
  const conflict: ConflictRecord = {
    fields: { title: { base: 'Base', mine: 'Mine', theirs: 'Theirs' }, impact },
    theirsUpdatedAt: 'theirs-time',
    gone: false,
  };
  const held = (): PendingRecord =>
    record([
      row({
        changes: { title: 'Mine', impact: 4, effort: 2 },
        base: { title: 'Base', impact: 1, effort: 1 },
        state: 'conflict',
        conflict,
      }),
    ]);

  it("holds the record's merged changes with the note that says what to do", () => {
    const patch = heldInConflict(held(), conflict);
    expect(patch).toMatchObject({
      changes: { title: 'Mine', impact: 4, effort: 2 },
      state: 'conflict',
      conflict,
      note: CONFLICT_NOTE,
      problem: null,
    });
    expect(heldInConflict(held(), { ...conflict, fields: {}, gone: true }).note).toBe(GONE_NOTE);
  });

  it('theirs drops the field; the record stays held while another field is in conflict', () => {
    const patch = resolvedConflict(held(), conflict, 'title', 'theirs', undefined);
    expect(patch).toMatchObject({
      changes: { impact: 4, effort: 2 },
      base: { impact: 1, effort: 1 },
      state: 'conflict',
      conflict: { fields: { impact } },
    });
  });

  it('mine or a new value is sent over theirs; the last pick queues it on their updatedAt', () => {
    const first = resolvedConflict(held(), conflict, 'title', 'value', 'Third');
    expect(first?.changes).toMatchObject({ title: 'Third' });
    expect(first?.base).toMatchObject({ title: 'Theirs' });
    const last = resolvedConflict(
      held(),
      { ...conflict, fields: { impact } },
      'impact',
      'mine',
      undefined,
    );
    expect(last).toMatchObject({
      changes: { impact: 4 },
      base: { impact: 3 },
      state: 'queued',
      conflict: null,
      note: null,
      baseUpdatedAt: 'theirs-time',
    });
  });

  it('nothing is left to send once theirs is taken for every field changed', () => {
    const only = record([
      row({ changes: { title: 'Mine' }, base: { title: 'Base' }, state: 'conflict', conflict }),
    ]);
    expect(resolvedConflict(only, conflict, 'title', 'theirs', undefined)).toBeNull();
  });

  it('a campaign gone from the active list is sent as it is (mine) or dropped (theirs)', () => {
    const gone: ConflictRecord = { fields: {}, theirsUpdatedAt: null, gone: true };
    const campaign = record([
      row({ kind: 'campaign', changes: { goal: 'G' }, state: 'conflict', conflict: gone }),
    ]);
    expect(resolvedConflict(campaign, gone, 'goal', 'mine', undefined)).toMatchObject({
      changes: { goal: 'G' },
      state: 'queued',
      conflict: null,
      forceSend: true,
    });
    expect(resolvedConflict(campaign, gone, 'goal', 'theirs', undefined)).toBeNull();
  });
});
