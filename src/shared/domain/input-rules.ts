// The rules a typed value must meet before anything is queued or read, the same for the window and the CLI:
// one parser of days and of dates with a time (a day that exists, a four-digit year), and the longest text
// a title, a description, a short value or a name may be, with the words a refusal uses.
import { z } from 'zod';
import { DateTime } from '../api';

/** A day as YYYY-MM-DD: zod's ISO date checks the calendar (2026-02-30 is refused, 2024-02-29 taken). */
const Day = z.iso.date();

/** The day `text` names (YYYY-MM-DD, a day that exists), or null. */
export function parseDay(text: string): string | null {
  return Day.safeParse(text).success ? text : null;
}

/**
 * The instant `text` names as ISO 8601 in UTC, or null: a date and time with its offset (the API's own
 * rule for its date-times: 2026-03-01T09:00:00Z, 2026-03-01T10:00:00+01:00) on a day that exists.
 */
export function parseDateTime(text: string): string | null {
  return DateTime.safeParse(text).success ? new Date(text).toISOString() : null;
}

/** How a refusal of a day reads: `--since needs a date (YYYY-MM-DD), not 2026-02-30.` */
export function dayRefusal(flag: string, text: string): string {
  return `${flag} needs a date (YYYY-MM-DD), not ${text.length > 40 ? `${text.slice(0, 40)}…` : text}.`;
}

/** The longest text each kind of field may hold: enough for any real one, small enough to show. */
export const TEXT_LIMITS = {
  /** A test's title, its control's and its variant's. */
  title: 250,
  /** The hypothesis. */
  longText: 5000,
  /** A goal, device, visitor option, priority, surface area, campaign id. */
  short: 100,
  /** A tag's, a custom audience's or a campaign's name. */
  name: 200,
} as const;
export type TextLimit = keyof typeof TEXT_LIMITS;

/** Why `value` is too long for `what` (at most `TEXT_LIMITS[limit]` characters), or null when it fits. */
export function tooLong(what: string, value: string, limit: TextLimit): string | null {
  const max = TEXT_LIMITS[limit];
  return value.length > max
    ? `${what} is too long: ${value.length.toLocaleString('en-US')} characters, at most ${max.toLocaleString('en-US')}`
    : null;
}

/** A tag's, audience's or campaign's name: the contract's schema, with the words `tooLong` uses. */
export const RecordName = z
  .string()
  .trim()
  .min(1, 'Name is required')
  .max(TEXT_LIMITS.name, `A name is at most ${TEXT_LIMITS.name} characters`);
