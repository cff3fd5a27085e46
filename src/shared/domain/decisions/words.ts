// How a decision's figures read in its sentences: one fixed style (en-US digits, a real minus sign),
// so a reason reads the same in the window, the CLI and the CSV.
import { METRICS } from '../metrics';
import type { GoalMetric } from './estimates';

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 1204 → "1,204". */
export function count(n: number): string {
  return integer.format(Math.round(n));
}

/** A fraction as a signed percent: 0.124 → "+12.4%", −0.021 → "−2.1%". */
export function signedPercent(x: number, digits = 1): string {
  const rounded = Math.abs(x * 100).toFixed(digits);
  const zero = Number(rounded) === 0;
  return `${zero ? '' : x > 0 ? '+' : '−'}${rounded}%`;
}

/** A probability as a percent without sign: 0.998 → "99.8%" (never "100%" unless it is). */
export function probability(p: number): string {
  if (p > 0.999 && p < 1) return '>99.9%';
  if (p < 0.001 && p > 0) return '<0.1%';
  return `${(p * 100).toFixed(1)}%`;
}

/** A forecast's chance in whole percent: never more precise than a projection is ("<1%", ">99%"). */
export function chance(p: number): string {
  if (p < 0.01) return '<1%';
  if (p > 0.99) return '>99%';
  return `${Math.round(p * 100)}%`;
}

/** A setting's percent: 0.95 → "95%", 0.975 → "97.5%". */
export function plainPercent(x: number): string {
  return `${Number((x * 100).toFixed(1))}%`;
}

/** The goal metric in a sentence: "conversion rate". */
export function metricWords(metric: GoalMetric): string {
  return (METRICS.find((m) => m.rate === metric)?.label ?? metric).toLowerCase();
}

/** "about 3 days", "about 2 weeks", "about 4 months": never more precise than a projection is. */
export function aboutDays(days: number): string {
  if (days <= 1) return 'about a day';
  if (days <= 13) return `about ${Math.round(days)} days`;
  if (days <= 62) return `about ${Math.round(days / 7)} weeks`;
  if (days <= 730) return `about ${Math.round(days / 30.4)} months`;
  if (days <= 3652) return `about ${Math.round(days / 365.25)} years`;
  return 'more than ten years';
}

/** "1 day", "24 days". */
export function days(n: number): string {
  return `${n} day${n === 1 ? '' : 's'}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A day number (days since 1970-01-01) as "21 Nov 2026": a date a sentence names, in one fixed style. */
export function dateWords(dayNumber: number): string {
  const date = new Date(dayNumber * 86_400_000);
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()] ?? ''} ${date.getUTCFullYear()}`;
}
