// The registry of outbox kinds: every kind of the bridge's list has one module, registered under its
// own name, and only the kinds created here under a local id say how a create settles.
import { describe, expect, it } from 'vitest';
import { EDIT_KINDS } from '#shared/contract/index';
import { isCreate, KINDS, kindOf } from '#core/outbox/kinds/index';

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
});
