// Formatting of dates, numbers and ages in the user's locale; one place so every view reads the same.

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const MINUS = '\u2212';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const utcDateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const dayMonthFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const utcDayMonthFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const shortUtcDateFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'short',
});
const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const intFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compactFormat = new Intl.NumberFormat(undefined, {
  notation: 'compact',
  maximumFractionDigits: 1,
});

/** A calendar date ("2024-05-01") is a day, not an instant: format it in UTC so it never shifts. */
function parse(value: string): { date: Date; dateOnly: boolean } | null {
  const dateOnly = DATE_ONLY.test(value);
  const date = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? null : { date, dateOnly };
}

/** A date for lists: "12 Mar 2025". Unparseable values are shown as sent. */
export function formatDate(value: string): string {
  const parsed = parse(value);
  if (!parsed) return value;
  return (parsed.dateOnly ? utcDateFormat : dateFormat).format(parsed.date);
}

/** A compact date for dense columns: "Nov 17" this year, "Nov 17, 2025" otherwise. */
export function formatShortDate(value: string): string {
  const parsed = parse(value);
  if (!parsed) return value;
  const year = parsed.dateOnly ? parsed.date.getUTCFullYear() : parsed.date.getFullYear();
  if (year !== new Date().getFullYear()) return formatDate(value);
  return (parsed.dateOnly ? utcDayMonthFormat : dayMonthFormat).format(parsed.date);
}

/** A date with its time when it has one: "12 Mar 2025, 14:05". */
export function formatDateTime(value: string): string {
  const parsed = parse(value);
  if (!parsed) return value;
  return (parsed.dateOnly ? utcDateFormat : dateTimeFormat).format(parsed.date);
}

/** A short axis label for a day key of a daily series ("Mar 12"); other keys are shown as sent. */
export function formatDayKey(key: string): string {
  return DATE_ONLY.test(key) ? shortUtcDateFormat.format(new Date(`${key}T00:00:00Z`)) : key;
}

/** A moment in a dense column: its time when it is today, its short date otherwise. */
export function formatMoment(value: string): string {
  const parsed = parse(value);
  if (!parsed || parsed.dateOnly) return parsed ? formatShortDate(value) : value;
  const today = new Date().toDateString() === parsed.date.toDateString();
  return today ? timeFormat.format(parsed.date) : formatShortDate(value);
}

export function formatTime(value: string): string {
  const parsed = parse(value);
  return parsed ? timeFormat.format(parsed.date) : value;
}

/** Time since an instant, compact: "now", "4m", "3h", "2d". */
export function formatAge(value: string, now: number): string {
  const parsed = parse(value);
  if (!parsed) return value;
  const minutes = Math.floor((now - parsed.date.getTime()) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h`;
  return `${Math.floor(hours / 24)}d`;
}

export function formatInt(value: number): string {
  return intFormat.format(value);
}

export function formatCompact(value: number): string {
  return compactFormat.format(value);
}

/** A plain number with a fixed number of decimals. */
export function formatNumber(value: number, digits = 2): string {
  return value.toLocaleString(undefined, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** A value already in percent (as the API sends rates and lifts): 3.42 -> "3.42%". */
export function formatPercent(percent: number, digits = 1): string {
  return `${formatNumber(percent, digits)}%`;
}

/** A signed percentage with a real minus sign: "+6.2%", "−1.4%", "0.0%". */
export function formatSignedPercent(percent: number, digits = 1): string {
  const rounded = Number(percent.toFixed(digits));
  const text = formatNumber(Math.abs(rounded), digits);
  if (rounded > 0) return `+${text}%`;
  if (rounded < 0) return `${MINUS}${text}%`;
  return `${text}%`;
}

/** A probability (0..1) as a whole percentage, never claiming certainty: "94%", ">99%", "<1%". */
export function formatProbability(probability: number): string {
  if (probability > 0.995) return '>99%';
  if (probability < 0.005) return '<1%';
  return `${Math.round(probability * 100)}%`;
}

/** "1 test", "3 tests". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatInt(count)} ${count === 1 ? one : many}`;
}
