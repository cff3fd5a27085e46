// The API's mutability table as data: which PATCH fields of a test (and of a campaign) may change, and
// why not when they may not. Used by the edit form (locked controls with their reason) and by the core
// before it queues or sends an edit; the server's answer still wins.
import type { Test, TestStatus, UpdateTestBody, UpdateTestField } from '../api';
import { isEnded, isLaunched, MUTABLE_AFTER_LAUNCH } from './lifecycle';

/** The short reasons the form shows beside a locked control. */
export const LOCKED_AFTER_LAUNCH = 'locked after launch';
export const ONLY_AFTER_END = 'only after the test has ended';
export type LockReason = typeof LOCKED_AFTER_LAUNCH | typeof ONLY_AFTER_END;

/**
 * Test fields Splitbook edits. `variant` (an object whose shape the spec does not show) is left out:
 * Splitbook edits the variant's title through `variantTitle` and its share through `controlTraffic`.
 */
export const TEST_EDIT_FIELDS = [
  'title',
  'hypothesisDescription',
  'controlTitle',
  'variantTitle',
  'priority',
  'surfaceArea',
  'impact',
  'effort',
  'tagIds',
  'implemented',
  'goal',
  'device',
  'visitorOption',
  'controlTraffic',
  'defaultAudiences',
  'customAudienceIds',
  'campaignId',
  'automaticallyStartAt',
  'automaticallyEndAt',
  'endWhenSignificant',
] as const satisfies readonly UpdateTestField[];
export type TestEditField = (typeof TEST_EDIT_FIELDS)[number];

export const CAMPAIGN_EDIT_FIELDS = ['name', 'objective', 'goal'] as const;
export type CampaignEditField = (typeof CAMPAIGN_EDIT_FIELDS)[number];

/** Fields a test cannot be without: null is refused locally (the API's simulator does the same). */
export const REQUIRED_TEST_FIELDS: ReadonlySet<string> = new Set([
  'title',
  'goal',
  'device',
  'visitorOption',
  'controlTraffic',
  'endWhenSignificant',
]);

/** Null when the field may change on a test with this status, else the reason it may not. */
export function testFieldLock(field: UpdateTestField, status: TestStatus): LockReason | null {
  if (field === 'implemented') return isEnded(status) ? null : ONLY_AFTER_END;
  if (isLaunched(status) && !MUTABLE_AFTER_LAUNCH.has(field)) return LOCKED_AFTER_LAUNCH;
  return null;
}

/** Every locked field of a change, with its reason; empty when the change may be sent. */
export function lockedFields(
  fields: readonly UpdateTestField[],
  status: TestStatus,
): { field: UpdateTestField; reason: LockReason }[] {
  return fields.flatMap((field) => {
    const reason = testFieldLock(field, status);
    return reason === null ? [] : [{ field, reason }];
  });
}

/** The value of a PATCH field as the test record shows it (ids for references). */
export function testFieldValue(test: Test, field: UpdateTestField): unknown {
  switch (field) {
    case 'controlTitle':
      return test.control.title ?? null;
    case 'variantTitle':
      return test.variant?.title ?? null;
    case 'controlTraffic':
      return test.control.traffic;
    case 'defaultAudiences':
      return test.defaultAudiences.map((a) => a.id);
    case 'customAudienceIds':
      return test.customAudiences.map((a) => a.id);
    case 'campaignId':
      return test.campaign?.id ?? null;
    case 'tagIds':
      return test.tags.map((t) => t.id);
    case 'variant':
      return test.variant;
    default:
      return (test as Record<string, unknown>)[field] ?? null;
  }
}

const SET_FIELDS: ReadonlySet<string> = new Set([
  'tagIds',
  'customAudienceIds',
  'defaultAudiences',
]);

/** Whether two values of a field are the same change; id lists compare as sets, null is not "not sent". */
export function sameValue(field: string, a: unknown, b: unknown): boolean {
  if (SET_FIELDS.has(field) && Array.isArray(a) && Array.isArray(b)) {
    return (
      JSON.stringify([...new Set(a.map(String))].sort()) ===
      JSON.stringify([...new Set(b.map(String))].sort())
    );
  }
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Problems of a change before it is queued: null on a required field, an empty title, scores not integers. */
export function checkTestChange(changes: UpdateTestBody): string[] {
  const errors: string[] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null && REQUIRED_TEST_FIELDS.has(field))
      errors.push(`'${field}' cannot be cleared: a test always has one`);
    if (field === 'title' && typeof value === 'string' && value.trim() === '')
      errors.push('The title cannot be empty');
  }
  return errors;
}
