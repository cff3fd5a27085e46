// The Edit tab's logic apart from its markup (EditTab.svelte): what a control's raw input means as a
// field's value, how a value is shown back in a control, which fields changed, what a key press in the
// form does, and the campaigns its picker offers.
import type { Test } from '#shared/api/index';
import { sameValue } from '#shared/domain/mutability';
import type { TestEditField } from '#shared/domain/test-fields';

/** Fields the user changed in the form and has not saved: field -> new value. */
export type TestDraft = Partial<Record<TestEditField, unknown>>;

/** A text control's value: empty is "not set" (null) unless the field is required. */
export function textValue(raw: string, nullable = true): string | null {
  return raw === '' && nullable ? null : raw;
}

/** A number control's value: a whole number, or null when empty or not a number. */
export function integerValue(raw: string): number | null {
  const n = raw.trim() === '' ? null : Number(raw);
  return n === null || Number.isNaN(n) ? null : Math.round(n);
}

/** A date-time control's value (local time, as `datetime-local` gives it) as an ISO instant. */
export function dateValue(raw: string): string | null {
  return raw === '' ? null : new Date(raw).toISOString();
}

/** An ISO instant as a `datetime-local` control shows it, in local time to the minute ('' if none). */
export function localDate(iso: string): string {
  if (iso === '') return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A value as a text control shows it. */
export function shownText(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

/** A list of ids as its checkboxes and pickers hold it. */
export function shownIds(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** The ids with `id` ticked (added at the end) or unticked. */
export function toggledId(ids: readonly string[], id: string, on: boolean): string[] {
  return on ? [...ids, id] : ids.filter((other) => other !== id);
}

/** The draft's fields whose value differs from the test's (`saved`: a field's value on the test). */
export function dirtyFields(
  draft: TestDraft,
  saved: (field: TestEditField) => unknown,
): TestEditField[] {
  return (Object.keys(draft) as TestEditField[]).filter((f) => !sameValue(f, draft[f], saved(f)));
}

/** The save button's words. */
export function saveLabel(saving: boolean, changed: number): string {
  if (saving) return 'Saving…';
  return `Save${changed > 0 ? ` ${changed} change${changed === 1 ? '' : 's'}` : ''}`;
}

/** A key press as the form reads it. */
export type FormKey = { key: string; ctrlKey: boolean; metaKey: boolean };

/**
 * What a key press in the form does: Esc drops the unsaved changes first (a second Esc, with nothing
 * changed, leaves the pane as elsewhere: null), Ctrl/Cmd+Enter saves.
 */
export function formKeyAction(press: FormKey, changed: number): 'cancel' | 'save' | null {
  if (press.key === 'Escape' && changed > 0) return 'cancel';
  if (press.key === 'Enter' && (press.ctrlKey || press.metaKey)) return 'save';
  return null;
}

/** Enter in a long text saves, as everywhere in the form; Shift+Enter starts a new line. */
export function textareaSaves(press: { key: string; shiftKey: boolean }): boolean {
  return press.key === 'Enter' && !press.shiftKey;
}

/** The campaigns the picker offers: the store's, with the test's own first when the store's list lacks it. */
export function campaignOptions(
  campaigns: readonly { id: string; name: string }[],
  own: Test['campaign'],
): { id: string; name: string }[] {
  const list = [...campaigns];
  if (own?.id && !list.some((c) => c.id === own.id))
    list.unshift({ id: own.id, name: own.name ?? own.id });
  return list;
}

/** A yes / no / not set control's value. */
export function yesNoValue(raw: string): boolean | null {
  return raw === '' ? null : raw === 'true';
}
