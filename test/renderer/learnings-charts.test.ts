// The Learnings view's words and charts (issue 45, item 6): the period in words, a concluded test's line,
// the months between the first call and the last (empty ones included), and the lift bins' colours.
import { describe, expect, test } from 'vitest';
import type { ConcludedTestRow, LearningsFigures } from '#shared/contract/index';
import {
  liftChart,
  liftTone,
  liftWords,
  metaText,
  monthLabel,
  perMonthChart,
  perMonthWords,
  periodWords,
} from '../../src/renderer/src/programme/learningsCharts';
import { formatDate } from '../../src/renderer/src/lib/format';

const figures = {
  perMonth: [
    { month: '2025-12', ship: 1, keepControl: 0, noDifference: 2 },
    { month: '2025-10', ship: 2, keepControl: 1, noDifference: 0 },
  ],
  liftHistogram: [
    { from: null, to: -0.05, count: 1 },
    { from: -0.05, to: 0.05, count: 0 },
    { from: 0.05, to: null, count: 3 },
  ],
} as unknown as LearningsFigures;

describe('the period and a test in words', () => {
  test('the period: all time, either open end, or both dates', () => {
    expect(periodWords('', '')).toBe('all time');
    expect(periodWords('', '2025-12-31')).toBe(`up to ${formatDate('2025-12-31')}`);
    expect(periodWords('2025-01-01', '')).toBe(`since ${formatDate('2025-01-01')}`);
    expect(periodWords('2025-01-01', '2025-12-31')).toBe(
      `${formatDate('2025-01-01')} – ${formatDate('2025-12-31')}`,
    );
  });

  test("a concluded test's line names its store only in a list of many, and leaves out what it lacks", () => {
    const row = {
      storeName: 'Northwind',
      goal: 'conversion-rate',
      decidedOn: '2025-11-16',
      days: 16,
      tags: ['Checkout', 'Mobile'],
    } as ConcludedTestRow;
    expect(metaText(row, true)).toBe(
      `Northwind · Conversion rate · called ${formatDate('2025-11-16')} · day 16 · Checkout, Mobile`,
    );
    expect(metaText({ ...row, decidedOn: null, days: null, tags: [] }, false)).toBe(
      'Conversion rate',
    );
  });

  test("a lift's tone follows the call", () => {
    expect(liftTone('ship')).toBe('up');
    expect(liftTone('keep_control')).toBe('down');
    expect(liftTone('no_difference')).toBe('flat');
  });
});

describe('the charts', () => {
  test('every month from the first call to the last, empty ones as zero, stacked by call', () => {
    const spec = perMonthChart(figures);
    expect(spec.labels).toEqual(['2025-10', '2025-11', '2025-12'].map(monthLabel));
    expect(spec.series.map((s) => [s.label, s.data])).toEqual([
      ['▲ Ship', [2, 0, 1]],
      ['▼ Keep control', [1, 0, 0]],
      ['= No difference', [0, 0, 2]],
    ]);
    expect(perMonthWords(figures)).toBe(
      `${monthLabel('2025-12')}: 1 recommended to ship, 0 to keep the control, 2 no difference; ${monthLabel('2025-10')}: 2 recommended to ship, 1 to keep the control, 0 no difference`,
    );
    expect(perMonthWords(null)).toBe('none');
  });

  test('lift bins: red below 0, green above, grey across it; the words list the bins with tests', () => {
    const spec = liftChart(figures);
    expect(spec.barColorVars).toEqual(['--negative', '--control', '--positive']);
    expect(spec.series[0]?.data).toEqual([1, 0, 3]);
    expect(liftWords(figures)).toBe('< −5%: 1; > +5%: 3');
    expect(liftWords(null)).toBe('none');
  });
});
