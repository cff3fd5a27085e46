// The registry of outbox kinds: every kind of the bridge's list has one module, registered under its
// own name, and only the kinds created here under a local id say how a create settles.
import { describe, expect, it } from 'vitest';
import { EDIT_KINDS } from '#shared/contract/index';
import { appendOutbox } from '#core/db/user/outbox';
import { isCreate, KINDS, kindOf } from '#core/outbox/kinds/index';
import type { OutboxKind } from '#core/outbox/model';
import { pendingRecord } from '#core/outbox/store';
import { makeCampaign, makeTest } from '../db/fixtures';
import { NOW, STORE, cache, outboxDb } from './support';

describe('the kinds registry', () => {
  it('holds one module per kind of the bridge, each under its own name', () => {
    expect(Object.keys(KINDS).sort()).toEqual([...EDIT_KINDS].sort());
    for (const kind of EDIT_KINDS) expect(kindOf(kind).kind).toBe(kind);
  });

  it('says which kinds are created here and which keep an attempt after a failure that says later', () => {
    expect(EDIT_KINDS.filter(isCreate)).toEqual(['tag', 'audience']);
    expect(EDIT_KINDS.filter((kind) => kindOf(kind).keepsAttempt)).toEqual([
      'test',
      'tag',
      'audience',
    ]);
  });

  it("validates a change with the bridge's own schema", () => {
    expect(kindOf('campaign').changes.safeParse({ name: 'Spring' }).success).toBe(true);
    expect(kindOf('campaign').changes.safeParse({ colour: 'red' }).success).toBe(false);
    expect(kindOf('tag').changes.safeParse({ name: '' }).success).toBe(false);
  });

  it('names a record in the pending list by its kind: the name it sets, else the server copy, else its id', () => {
    const db = outboxDb();
    const test = makeTest({ n: 1, title: 'Server title' });
    const campaign = makeCampaign(1, 'Server name');
    cache(db, { tests: [test], campaigns: [campaign] });
    const label = (kind: OutboxKind, recordId: string, changes: Record<string, unknown>) => {
      appendOutbox(db, {
        storeId: STORE,
        kind,
        recordId,
        changes,
        base: {},
        baseUpdatedAt: null,
        now: NOW,
      });
      const record = pendingRecord(db, STORE, kind, recordId);
      if (record === null) throw new Error(`no pending ${kind} ${recordId}`);
      return kindOf(kind).label(db, record);
    };
    expect(label('test', test.id, { priority: 'high' })).toBe('Server title');
    expect(label('test', test.id, { title: 'Mine' })).toBe('Mine');
    expect(label('test', 'unknown-test', { priority: 'high' })).toBe('unknown-test');
    expect(label('campaign', campaign.id, { goal: 'More' })).toBe('Server name');
    expect(label('campaign', campaign.id, { name: 'Renamed' })).toBe('Renamed');
    expect(label('tag', 'local-tag', { name: 'Spring' })).toBe('Spring');
    expect(label('audience', 'local-aud', {})).toBe('local-aud');
  });

  it('lets only an unsent tag be renamed in place', () => {
    expect(EDIT_KINDS.filter((kind) => kindOf(kind).renamable)).toEqual(['tag']);
  });
});
