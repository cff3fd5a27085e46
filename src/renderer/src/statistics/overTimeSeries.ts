// The probability-over-time points as chart series, one slot per calendar day (no chart.js here, so
// the Results tab can shape the data before the chart's chunk loads).
import type { OverTimePoint } from '#shared/domain/statistics/index';
import { dateOfDayNumber, dayNumberOf } from '#shared/domain/statistics/index';

/** One slot per calendar day from the first point to the last; a day without a point is null (a gap). */
export type OverTimeSeries = {
  dates: string[];
  pWin: (number | null)[];
  low: (number | null)[];
  high: (number | null)[];
  missing: number;
};

export function overTimeSeries(points: readonly OverTimePoint[]): OverTimeSeries {
  const byDay = new Map<number, OverTimePoint>();
  for (const point of points) {
    const day = dayNumberOf(point.date);
    if (day !== null) byDay.set(day, point);
  }
  const days = [...byDay.keys()];
  const series: OverTimeSeries = { dates: [], pWin: [], low: [], high: [], missing: 0 };
  if (days.length === 0) return series;
  const first = Math.min(...days);
  const last = Math.max(...days);
  for (let day = first; day <= last; day++) {
    const point = byDay.get(day);
    series.dates.push(dateOfDayNumber(day));
    series.pWin.push(point ? point.pWin * 100 : null);
    series.low.push(point ? point.liftCiLow * 100 : null);
    series.high.push(point ? point.liftCiHigh * 100 : null);
    if (!point) series.missing += 1;
  }
  return series;
}
