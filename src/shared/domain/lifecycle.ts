// The one place that says what "launched" and "ended" mean for a test status (which fields they lock
// is said by each field's description, test-fields.ts).
import type { TestStatus } from '../api';

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
