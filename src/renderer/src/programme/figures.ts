// How the programme's figures read in the window: lifts and rates are fractions in the contract.
import { formatNumber, formatSignedPercent } from '../lib/format';

/** 0.263 → "+26.3%"; null → "—". */
export function liftText(lift: number | null, digits = 1): string {
  return lift === null ? '—' : formatSignedPercent(lift * 100, digits);
}

/** 0.5556 → "56%"; null → "—". */
export function rateText(rate: number | null): string {
  return rate === null ? '—' : `${Math.round(rate * 100)}%`;
}

/** "+4.1% to +21.3%", or "" without both ends. */
export function intervalText(low: number | null, high: number | null): string {
  return low === null || high === null ? '' : `${liftText(low)} to ${liftText(high)}`;
}

/** Money in the store's currency, unlabelled (the API states none): whole units. */
export function moneyText(value: number): string {
  return formatNumber(value, 0).replace(/^-/, '\u2212');
}

/** A histogram bin's label: "< −25%", "−5% to 0%", "> +25%". */
export function binText(from: number | null, to: number | null): string {
  if (from === null && to !== null) return `< ${liftText(to, 0)}`;
  if (to === null && from !== null) return `> ${liftText(from, 0)}`;
  return `${liftText(from, 0)} to ${liftText(to, 0)}`;
}

/** Every month from the first to the last with a concluded test, empty ones included, so the bars read as time. */
export function monthsBetween<T extends { month: string }>(
  rows: readonly T[],
  empty: (month: string) => T,
): T[] {
  if (rows.length === 0) return [];
  const sorted = [...rows].sort((a, b) => a.month.localeCompare(b.month));
  const first = sorted[0]?.month ?? '';
  const last = sorted.at(-1)?.month ?? '';
  const byMonth = new Map(sorted.map((r) => [r.month, r]));
  const out: T[] = [];
  let [year, month] = first.split('-').map(Number) as [number, number];
  for (let guard = 0; guard < 600; guard += 1) {
    const key = `${year}-${String(month).padStart(2, '0')}`;
    out.push(byMonth.get(key) ?? empty(key));
    if (key >= last) break;
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return out;
}
