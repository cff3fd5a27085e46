// The cumulative P(win) and lift interval of a binary rate, day by day, from the `daily` series.
//
// Each point uses the same exact/quadrature methods as the totals (no normal approximation), which costs
// ~20-60 µs a day: a year of days stays well under the 50 ms goal (bench/statistics.bench.ts).
// Daily visitors are unique per day, so their running sum counts a returning visitor once per day: the
// curve's trials can exceed the totals' visitors. Its last point may therefore differ slightly from the
// analysis of the totals; the shape over time is what it is for.
import type { TestResults } from '../../api';
import { binaryCounts, isBinary } from './binary';
import { dailySeries } from './daily';
import { liftInterval } from './interval';
import { logPosterior, posteriorOf } from './posterior';
import { compareRates } from './probability';
import type { BinaryRate, OverTimePoint } from './schemas';

/** One point per parsable day; a day whose running counts are not binary (count > trials) is left out. */
export function overTime(daily: TestResults['daily'], rate: BinaryRate): OverTimePoint[] {
  const { days } = dailySeries(daily);
  const points: OverTimePoint[] = [];
  let controlCount = 0;
  let controlTrials = 0;
  let variantCount = 0;
  let variantTrials = 0;
  for (const day of days) {
    const a = binaryCounts(day.control, rate);
    const b = binaryCounts(day.variant, rate);
    controlCount += a.count;
    controlTrials += a.trials;
    variantCount += b.count;
    variantTrials += b.trials;
    if (!isBinary(controlCount, controlTrials) || !isBinary(variantCount, variantTrials)) continue;
    const control = posteriorOf(controlCount, controlTrials);
    const variant = posteriorOf(variantCount, variantTrials);
    const logs = { control: logPosterior(control), variant: logPosterior(variant) };
    const { pWin } = compareRates(control, variant, logs);
    const interval = liftInterval(control, variant, undefined, logs);
    points.push({
      date: day.date,
      controlCount,
      controlTrials,
      variantCount,
      variantTrials,
      pWin,
      liftCiLow: interval.low,
      liftCiHigh: interval.high,
    });
  }
  return points;
}
