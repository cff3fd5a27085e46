// The Edit tab's logic apart from its markup (edits/testDraft.ts): what each control's raw input means,
// how a value shows back, which fields changed, the form's keys and the campaigns offered.
import { describe, expect, test } from 'vitest';
import {
  campaignOptions,
  dateValue,
  dirtyFields,
  formKeyAction,
  integerValue,
  localDate,
  saveLabel,
  shownIds,
  shownText,
  textareaSaves,
  textValue,
  toggledId,
  yesNoValue,
} from '../../src/renderer/src/edits/testDraft';

describe('parsing inline edits', () => {
  test('text: empty is not set, unless the field is required', () => {
    expect(textValue('Hero')).toBe('Hero');
    expect(textValue('')).toBeNull();
    expect(textValue('', false)).toBe('');
    expect(textValue(' ')).toBe(' ');
  });

  test('a whole number: rounded, and null when empty or not a number', () => {
    expect(integerValue('42')).toBe(42);
    expect(integerValue('2.6')).toBe(3);
    expect(integerValue('  ')).toBeNull();
    expect(integerValue('abc')).toBeNull();
    expect(integerValue('-1')).toBe(-1);
  });

  test('yes / no / not set', () => {
    expect(yesNoValue('')).toBeNull();
    expect(yesNoValue('true')).toBe(true);
    expect(yesNoValue('false')).toBe(false);
  });

  test('a date and time: local input to an ISO instant and back, to the minute', () => {
    expect(dateValue('')).toBeNull();
    const iso = dateValue('2026-03-01T09:05');
    expect(iso).toBe(new Date('2026-03-01T09:05').toISOString());
    expect(localDate(iso ?? '')).toBe('2026-03-01T09:05');
    expect(localDate('')).toBe('');
    expect(localDate('not a date')).toBe('');
  });

  test('values shown back in the controls', () => {
    expect(shownText(null)).toBe('');
    expect(shownText(undefined)).toBe('');
    expect(shownText(7)).toBe('7');
    expect(shownIds(['a', 2])).toEqual(['a', '2']);
    expect(shownIds(null)).toEqual([]);
    expect(toggledId(['a'], 'b', true)).toEqual(['a', 'b']);
    expect(toggledId(['a', 'b'], 'a', false)).toEqual(['b']);
  });
});

describe('validation of the draft', () => {
  test('only fields whose value differs from the test count as changed', () => {
    const saved = (field: string) =>
      ({ title: 'Server', priority: 'low', tagIds: ['a', 'b'] })[field] ?? null;
    expect(dirtyFields({}, saved)).toEqual([]);
    expect(dirtyFields({ title: 'Server' }, saved)).toEqual([]);
    expect(dirtyFields({ title: 'Mine', priority: 'low' }, saved)).toEqual(['title']);
    expect(dirtyFields({ tagIds: ['b', 'a'], hypothesisDescription: null }, saved)).toEqual([]);
  });

  test('the save button says how many changes it saves', () => {
    expect(saveLabel(false, 0)).toBe('Save');
    expect(saveLabel(false, 1)).toBe('Save 1 change');
    expect(saveLabel(false, 3)).toBe('Save 3 changes');
    expect(saveLabel(true, 3)).toBe('Saving…');
  });

  test("the campaign picker keeps the test's own campaign when the store's list lacks it", () => {
    const listed = [{ id: 'c1', name: 'Spring' }];
    expect(campaignOptions(listed, { id: 'c1', name: 'Spring' })).toEqual(listed);
    expect(campaignOptions(listed, { id: 'c9', name: null })).toEqual([
      { id: 'c9', name: 'c9' },
      ...listed,
    ]);
    expect(campaignOptions(listed, null)).toEqual(listed);
  });
});

describe('keyboard handling', () => {
  const key = (k: string, mods: { ctrlKey?: boolean; metaKey?: boolean } = {}) => ({
    key: k,
    ctrlKey: mods.ctrlKey ?? false,
    metaKey: mods.metaKey ?? false,
  });

  test('Esc cancels unsaved changes, and with none leaves the pane its Esc', () => {
    expect(formKeyAction(key('Escape'), 2)).toBe('cancel');
    expect(formKeyAction(key('Escape'), 0)).toBeNull();
  });

  test('Ctrl/Cmd+Enter saves; a plain Enter is the form submit', () => {
    expect(formKeyAction(key('Enter', { ctrlKey: true }), 0)).toBe('save');
    expect(formKeyAction(key('Enter', { metaKey: true }), 1)).toBe('save');
    expect(formKeyAction(key('Enter'), 1)).toBeNull();
  });

  test('in a long text Enter saves and Shift+Enter starts a line', () => {
    expect(textareaSaves({ key: 'Enter', shiftKey: false })).toBe(true);
    expect(textareaSaves({ key: 'Enter', shiftKey: true })).toBe(false);
    expect(textareaSaves({ key: 'a', shiftKey: false })).toBe(false);
  });
});
