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
  // 2024-02-31 is not a date (Date.UTC would roll it over to March).
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return daysFromCivil(year, month, day);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil): plain
 * arithmetic, no Date object, since every daily key of 10,000 tests goes through here.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
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
  // The API sends the days in order as a rule: check before paying for a sort.
  let sorted = true;
  for (let k = 1; k < days.length && sorted; k++) sorted = (days[k - 1]?.dayNumber ?? 0) < (days[k]?.dayNumber ?? 0);
  if (!sorted) days.sort((a, b) => a.dayNumber - b.dayNumber);
  return { days, skippedKeys };
}
