// The Decisions settings' fields (issue 45, item 6: logic out of DecisionSettingsSection.svelte): a
// percent shown ×100 and stored as a fraction, each field's range in its error, what a field shows per
// scope, the guardrails' toggle, and the patch and resets a scope's draft sends.
import { describe, expect, test } from 'vitest';
import type { DecisionSettingsView } from '#shared/contract/index';
import { DEFAULT_DECISION_SETTINGS } from '#shared/domain/decisions/schemas';
import {
  draftChange,
  draftsInvalid,
  errorOf,
  FIELDS,
  guardrailsEffective,
  overridden,
  shown,
  stored,
  toggledGuardrails,
  valueOf,
} from '../../src/renderer/src/settings/decisionFields';

const field = (key: string) => {
  const found = FIELDS.find((f) => f.key === key);
  if (!found) throw new Error(key);
  return found;
};
const credibility = field('credibility');
const runtime = field('minRuntimeDays');

const global = { ...DEFAULT_DECISION_SETTINGS, credibility: 0.95 };
const view: DecisionSettingsView = {
  global,
  stores: [
    {
      storeId: 's1',
      storeName: 'One',
      overrides: { minRuntimeDays: 21 },
      effective: { ...global, minRuntimeDays: 21 },
    },
  ],
};

describe('decision settings fields', () => {
  test('a percent is shown ×100 and stored as a fraction; days as they are', () => {
    expect(shown(credibility, 0.95)).toBe(95);
    expect(stored(credibility, 97.5)).toBe(0.975);
    expect(shown(runtime, 14)).toBe(14);
    expect(stored(runtime, 14)).toBe(14);
  });

  test('an error says the range as the field writes it; empty is required only globally', () => {
    expect(errorOf(credibility, 95, true)).toBeNull();
    expect(errorOf(credibility, 50, true)).toBe('From 80% to 99.9%');
    expect(errorOf(runtime, 0, false)).toBe('From 1 to 60');
    expect(errorOf(runtime, null, true)).toBe('Required');
    expect(errorOf(runtime, null, false)).toBeNull();
    expect(draftsInvalid({ '': { credibility: 50 } }, true)).toBe(true);
    expect(draftsInvalid({ '': { credibility: 96 } }, true)).toBe(false);
  });

  test('a field shows the typed value, else the store override, else the global value', () => {
    expect(valueOf(credibility, { view, scope: '', draft: {} })).toBe(95);
    expect(valueOf(credibility, { view, scope: '', draft: { credibility: 90 } })).toBe(90);
    expect(valueOf(runtime, { view, scope: 's1', draft: {} })).toBe(21);
    expect(valueOf(credibility, { view, scope: 's1', draft: {} })).toBeNull();
    expect(valueOf(credibility, { view: null, scope: '', draft: {} })).toBeNull();
    expect(overridden(runtime, { view, scope: 's1', draft: {} })).toBe(true);
    expect(overridden(runtime, { view, scope: 's1', draft: { minRuntimeDays: null } })).toBe(false);
    expect(overridden(runtime, { view, scope: '', draft: {} })).toBe(false);
  });

  test("the guardrails toggle one metric and keep the metrics' order", () => {
    expect(guardrailsEffective({ view, scope: 's1', draft: {} })).toEqual(view.global.guardrails);
    const on = toggledGuardrails('default', 'rpv', true);
    expect(on).toEqual(['rpv']);
    expect(toggledGuardrails(on, 'rpv', false)).toEqual([]);
  });

  test('a draft sends its values stored and, for a store, resets of the fields emptied', () => {
    expect(draftChange('', { credibility: 97, minRuntimeDays: null })).toEqual({
      patch: { credibility: 0.97 },
      clear: [],
    });
    expect(draftChange('s1', { minRuntimeDays: null, guardrails: null })).toEqual({
      patch: {},
      clear: ['minRuntimeDays', 'guardrails'],
    });
    expect(draftChange('s1', { guardrails: ['rpv'] })).toEqual({
      patch: { guardrails: ['rpv'] },
      clear: [],
    });
  });
});
