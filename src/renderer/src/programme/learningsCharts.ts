// The Learnings view's words and charts as plain functions: the period in words, a concluded test's
// line, the concluded tests per month and the spread of goal lifts (bars, and the same in words).
import type { ConcludedTestRow, LearningsFigures } from '#shared/contract/index';
import { formatDate } from '../lib/format';
import { goalName } from '../results/metrics';
import type { BarSpec } from './barChart';
import { binText, monthsBetween } from './figures';

/** The three calls that conclude a test, as the month chart stacks and names them. */
export const CALLS = [
  { key: 'ship', symbol: '▲', label: 'Ship', colorVar: '--call-ship-fg' },
  { key: 'keepControl', symbol: '▼', label: 'Keep control', colorVar: '--call-control-fg' },
  { key: 'noDifference', symbol: '=', label: 'No difference', colorVar: '--call-flat-fg' },
] as const;

const monthFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  year: '2-digit',
  timeZone: 'UTC',
});

/** "2025-11" → "Nov 25". */
export function monthLabel(month: string): string {
  return monthFormat.format(new Date(`${month}-01T00:00:00Z`));
}

/** The period chosen ('' for an open end): "all time", "since …", "up to …" or "… – …". */
export function periodWords(since: string, until: string): string {
  if (since === '' && until === '') return 'all time';
  if (since === '') return `up to ${formatDate(until)}`;
  if (until === '') return `since ${formatDate(since)}`;
  return `${formatDate(since)} – ${formatDate(until)}`;
}

/** "Northwind · Conversion rate · called Nov 16, 2025 · day 16 · Checkout" (the store in a list of many). */
export function metaText(row: ConcludedTestRow, manyStores: boolean): string {
  return [
    manyStores ? row.storeName : null,
    goalName(row.goal),
    row.decidedOn ? `called ${formatDate(row.decidedOn)}` : null,
    row.days === null ? null : `day ${row.days}`,
    row.tags.length > 0 ? row.tags.join(', ') : null,
  ]
    .filter((part) => part !== null)
    .join(' · ');
}

/** The colour class of a concluded test's lift: up for ship, down for keep the control, else flat. */
export function liftTone(call: ConcludedTestRow['call']): 'up' | 'down' | 'flat' {
  if (call === 'ship') return 'up';
  if (call === 'keep_control') return 'down';
  return 'flat';
}

/** Concluded tests per month, stacked by call, every month between the first and the last. */
export function perMonthChart(figures: LearningsFigures): BarSpec {
  const months = monthsBetween(figures.perMonth, (month) => ({
    month,
    ship: 0,
    keepControl: 0,
    noDifference: 0,
  }));
  return {
    labels: months.map((m) => monthLabel(m.month)),
    series: CALLS.map((c) => ({
      label: `${c.symbol} ${c.label}`,
      colorVar: c.colorVar,
      data: months.map((m) => m[c.key]),
    })),
    xTitle: 'Month of the call',
    yTitle: 'Tests',
  };
}

/** The month chart in words, for its description. */
export function perMonthWords(figures: LearningsFigures | null): string {
  return (
    (figures?.perMonth ?? [])
      .map(
        (m) =>
          `${monthLabel(m.month)}: ${m.ship} recommended to ship, ${m.keepControl} to keep the control, ${m.noDifference} no difference`,
      )
      .join('; ') || 'none'
  );
}

/** The goal lifts at the call in bins: red below 0, green above, grey across it. */
export function liftChart(figures: LearningsFigures): BarSpec {
  const bins = figures.liftHistogram;
  return {
    labels: bins.map((b) => binText(b.from, b.to)),
    series: [{ label: 'Tests', colorVar: '--control', data: bins.map((b) => b.count) }],
    barColorVars: bins.map((b) =>
      (b.to ?? 1) <= 0 ? '--negative' : (b.from ?? -1) >= 0 ? '--positive' : '--control',
    ),
    xTitle: 'Goal lift at the call',
    yTitle: 'Tests',
  };
}

/** The lift chart in words: the bins with tests. */
export function liftWords(figures: LearningsFigures | null): string {
  return (
    (figures?.liftHistogram ?? [])
      .filter((b) => b.count > 0)
      .map((b) => `${binText(b.from, b.to)}: ${b.count}`)
      .join('; ') || 'none'
  );
}
