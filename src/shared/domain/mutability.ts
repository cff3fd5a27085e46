// The API's mutability rules for a test's PATCH fields (and the campaign fields Splitbook edits), derived
// from the field descriptions (test-fields.ts): whether and why a field is locked for a status, a field's
// value on a record, whether two values are the same change, a change's local checks. Used by the edit
// form, the core before it queues or sends an edit and the simulator; the server's answer still wins.
import type { Test, TestStatus, UpdateTestBody, UpdateTestField } from '../api';
import {
  FIELD_LOCKS,
  OTHER_PATCH_FIELD_LOCKS,
  testField,
  TEST_FIELDS,
  type FieldLock,
  type LockReason,
} from './test-fields';
import { parseDateTime, tooLong } from './input-rules';

export const CAMPAIGN_EDIT_FIELDS = ['name', 'objective', 'goal'] as const;
export type CampaignEditField = (typeof CAMPAIGN_EDIT_FIELDS)[number];

/** Fields a test cannot be without: null is refused locally (the API's simulator does the same). */
export const REQUIRED_TEST_FIELDS: ReadonlySet<string> = new Set(
  TEST_FIELDS.filter((f) => f.required).map((f) => f.name),
);

function lockOf(field: UpdateTestField): FieldLock | null {
  return field === 'variant' ? OTHER_PATCH_FIELD_LOCKS[field] : (testField(field)?.lock ?? null);
}

function isLocked(field: UpdateTestField, status: TestStatus): FieldLock | null {
  const lock = lockOf(field);
  return lock !== null && FIELD_LOCKS[lock].locked(status) ? lock : null;
}

/** Null when the field may change on a test with this status, else the short reason shown beside it. */
export function testFieldLock(field: UpdateTestField, status: TestStatus): LockReason | null {
  const lock = isLocked(field, status);
  return lock === null ? null : FIELD_LOCKS[lock].reason;
}

/** Why a field cannot be changed on a test with this status, as a sentence naming both; null when it can. */
export function lockMessage(field: UpdateTestField, status: TestStatus): string | null {
  const lock = isLocked(field, status);
  return lock === null ? null : `'${field}' ${FIELD_LOCKS[lock].says} (status: ${status})`;
}

/** Every locked field of a change, with its sentence; empty when the change may be sent. */
export function lockedFields(
  fields: readonly UpdateTestField[],
  status: TestStatus,
): { field: UpdateTestField; message: string }[] {
  return fields.flatMap((field) => {
    const message = lockMessage(field, status);
    return message === null ? [] : [{ field, message }];
  });
}

/** The value of a PATCH field as the test record shows it (ids for references). */
export function testFieldValue(test: Test, field: UpdateTestField): unknown {
  return field === 'variant' ? test.variant : (testField(field)?.read(test) ?? null);
}

/** Whether two values of a field are the same change; id lists compare as sets, null is not "not sent". */
export function sameValue(field: string, a: unknown, b: unknown): boolean {
  if (testField(field)?.list && Array.isArray(a) && Array.isArray(b)) {
    return (
      JSON.stringify([...new Set(a.map(String))].sort()) ===
      JSON.stringify([...new Set(b.map(String))].sort())
    );
  }
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Problems of a change before it is queued, in the words the window and the CLI show: null on a required
 * field, an empty title, a text longer than its field holds, a number outside its field's bounds, a date
 * and time that is not one (the API's rule: ISO 8601 with its offset, on a day that exists).
 */
export function checkTestChange(changes: UpdateTestBody): string[] {
  const errors: string[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null && REQUIRED_TEST_FIELDS.has(field))
      errors.push(`'${field}' cannot be cleared: a test always has one`);
    if (field === 'title' && typeof value === 'string' && value.trim() === '')
      errors.push('The title cannot be empty');
    const spec = testField(field);
    if (spec === null) continue;
    if (typeof value === 'string' && spec.limit) {
      const long = tooLong(`'${field}'`, value, spec.limit);
      if (long) errors.push(long);
    }
    if (
      typeof value === 'number' &&
      spec.range &&
      (value < spec.range.min || value > spec.range.max)
    )
      errors.push(
        `'${field}' must be from ${spec.range.min} to ${spec.range.max}${spec.hint ? ` (${spec.hint})` : ''}, not ${value}`,
      );
    if (typeof value === 'string' && spec.input === 'date-time' && parseDateTime(value) === null)
      errors.push(
        `'${field}' must be a date and time with its offset on a day that exists (2026-03-01T09:00:00Z), not ${JSON.stringify(value.slice(0, 40))}`,
      );
  }
  return errors;
}
