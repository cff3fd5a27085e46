// The Pending changes view's logic (issue 45, item 6: out of PendingView.svelte): a value typed to
// settle a conflict read as its field's type, the keys of records and their fields, and the stores
// Send now sends to.
import { describe, expect, test } from 'vitest';
import type { PendingEdit } from '#shared/contract/index';
import { keyOf, parseTyped, pushableStores } from '../../src/renderer/src/edits/pending';

function record(over: Partial<PendingEdit> = {}): PendingEdit {
  return {
    storeId: 's1',
    kind: 'test',
    recordId: 't1',
    label: 'Hero',
    state: 'conflict',
    note: null,
    problem: null,
    changes: [
      { field: 'traffic', base: 50, mine: 60, theirs: 40, conflict: true },
      { field: 'enabled', base: false, mine: true, theirs: false, conflict: true },
      { field: 'tags', base: [], mine: ['a'], theirs: [], conflict: true },
      { field: 'name', base: 'a', mine: 'b', theirs: 'c', conflict: true },
    ],
    edits: [],
    gone: false,
    renamable: false,
    names: {},
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...over,
  };
}

describe('pending', () => {
  test('a typed value takes the type of the field mine holds', () => {
    const r = record();
    expect(parseTyped(r, 'traffic', '75')).toBe(75);
    expect(parseTyped(r, 'traffic', ' ')).toBeNull();
    expect(parseTyped(r, 'enabled', 'Yes')).toBe(true);
    expect(parseTyped(r, 'enabled', 'true')).toBe(true);
    expect(parseTyped(r, 'enabled', 'no')).toBe(false);
    expect(parseTyped(r, 'tags', 'a, b,,c ')).toEqual(['a', 'b', 'c']);
    expect(parseTyped(r, 'name', ' New ')).toBe(' New ');
  });

  test("a record's key, and its fields' keys", () => {
    expect(keyOf(record())).toBe('s1/test/t1/');
    expect(keyOf(record(), 'traffic')).toBe('s1/test/t1/traffic');
  });

  test('Send now sends to each store with a queued or waiting edit, once', () => {
    const rows = [
      record({ storeId: 'a', state: 'queued' }),
      record({ storeId: 'a', state: 'waiting', recordId: 't2' }),
      record({ storeId: 'b', state: 'failed' }),
      record({ storeId: 'c', state: 'waiting' }),
    ];
    expect(pushableStores(rows)).toEqual(['a', 'c']);
  });
});
