// Periods of whole days as the date inputs and the contract take them ('YYYY-MM-DD', both ends included),
// counted on the user's own calendar.

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Today on this computer's calendar. */
export function today(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The day `days` after `day` (negative: before). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The last `days` days up to today, today included. */
export function lastDays(days: number, now: Date = new Date()): { since: string; until: string } {
  const until = today(now);
  return { since: addDays(until, -(days - 1)), until };
}

/** Whether a date input holds a real day (an input cleared or half typed holds ''). */
export function isDay(value: string): boolean {
  return DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
}

/** Why a period cannot be asked for, or null when it can. Empty ends are open. */
export function periodProblem(since: string, until: string): string | null {
  if (since !== '' && !isDay(since)) return 'The start is not a whole date.';
  if (until !== '' && !isDay(until)) return 'The end is not a whole date.';
  if (since !== '' && until !== '' && since > until) return 'The period starts after it ends.';
  return null;
}
