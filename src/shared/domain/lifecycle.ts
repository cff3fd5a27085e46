// The one place that says what "launched" and "ended" mean for a test status,
// and which PATCH fields stay mutable (the spec's mutability table).
import type { TestStatus, UpdateTestField } from '../api';

/** Never launched: everything may still change (the programme's backlog is these tests). */
export const NOT_LAUNCHED_STATUSES = ['draft', 'scheduled', 'incompatible'] as const;
const NOT_LAUNCHED: ReadonlySet<string> = new Set(NOT_LAUNCHED_STATUSES);
/** Launched and over: `implemented` becomes mutable. */
const ENDED: ReadonlySet<string> = new Set(['completed', 'cancelled']);

/**
 * A test is launched once it has left draft/scheduled (incompatible tests are
 * drafts that cannot start on the current theme). An unknown status counts as
 * launched, so a status we do not know locks more, never less.
 */
export function isLaunched(status: TestStatus): boolean {
  return !NOT_LAUNCHED.has(status);
}

export function isEnded(status: TestStatus): boolean {
  return ENDED.has(status);
}

/** Live tests keep collecting data, so their results can change between syncs. */
export function isLive(status: TestStatus): boolean {
  return status === 'active' || status === 'paused' || status === 'suspended';
}

/** Fields that stay mutable after launch (spec: mutability table). */
export const MUTABLE_AFTER_LAUNCH: ReadonlySet<UpdateTestField> = new Set<UpdateTestField>([
  'title',
  'hypothesisDescription',
  'controlTitle',
  'variantTitle',
  'priority',
  'surfaceArea',
  'impact',
  'effort',
  'tagIds',
]);

/**
 * Why a field cannot be changed on a test with this status, or null when it can.
 * `implemented` is mutable only once the test has ended.
 */
export function lockReason(field: UpdateTestField, status: TestStatus): string | null {
  if (field === 'implemented') {
    return isEnded(status)
      ? null
      : `'implemented' can be set only after the test has ended (status: ${status})`;
  }
  if (isLaunched(status) && !MUTABLE_AFTER_LAUNCH.has(field)) {
    return `'${field}' is locked after launch (status: ${status})`;
  }
  return null;
}
