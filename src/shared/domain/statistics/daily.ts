// The `daily` map of a test's results as a sorted series of UTC days; keys that are not dates are skipped.
import type { SideStatistics, TestResults } from '../../api';

export const DAY_MS = 86_400_000;

export type Day = {
  /** 'YYYY-MM-DD'. */
  date: string;
  /** Days since 1970-01-01 (UTC), to find gaps without time zones. */
  dayNumber: number;
  control: SideStatistics;
  variant: SideStatistics;
};

/**
 * The day number of a 'YYYY-MM-DD' key (a trailing time, 'T…', is tolerated and ignored), or null when the
 * key is not a real calendar date: the spec does not define the keys, so we read defensively.
 */
export function dayNumberOf(key: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(key);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  // Date.UTC rolls 2024-02-31 over to March: such a key is not a date.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return Math.round(ms / DAY_MS);
}

/** The day number of any timestamp string Date.parse understands, or null. */
export function dayNumberOfTimestamp(value: string | null | undefined): number | null {
  if (value == null) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? Math.floor(ms / DAY_MS) : null;
}

export function dateOfDayNumber(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}

/** The parsed days in date order, and the keys that were skipped (unparsable, or a second key for one date). */
export function dailySeries(daily: TestResults['daily']): { days: Day[]; skippedKeys: string[] } {
  const days: Day[] = [];
  const skippedKeys: string[] = [];
  const seen = new Set<number>();
  for (const [key, point] of Object.entries(daily)) {
    const dayNumber = dayNumberOf(key);
    if (dayNumber === null || seen.has(dayNumber)) {
      skippedKeys.push(key);
      continue;
    }
    seen.add(dayNumber);
    days.push({ date: key.slice(0, 10), dayNumber, control: point.performance.control, variant: point.performance.variant });
  }
  days.sort((a, b) => a.dayNumber - b.dayNumber);
  return { days, skippedKeys };
}
