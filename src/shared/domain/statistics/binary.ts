// Binary rates of a side (CVR, ACR, CTR as shares of visitors) and their full analysis.
import type { SideStatistics } from '../../api';
import { liftInterval } from './interval';
import { logPosterior, posteriorOf } from './posterior';
import { compareRates } from './probability';
import type { BinaryMetricAnalysis, BinaryRate, PerMetric } from './schemas';

/**
 * Successes and trials of a binary rate. Per issue 10 every rate is a share of visitors
 * (CTR = clicks ÷ visitors), so that each visitor is one Bernoulli trial.
 */
/** What the binary analysis reads of a side: visitors and the rates' events. */
export type BinarySide = Pick<SideStatistics, 'visitors' | 'conversions' | 'carts' | 'clicks'>;

export function binaryCounts(side: BinarySide, rate: BinaryRate): { count: number; trials: number } {
  const count = rate === 'cvr' ? side.conversions : rate === 'acr' ? side.carts : side.clicks;
  return { count, trials: side.visitors };
}

/** A count is binary when it is a whole number of trials, no more than the trials. */
export function isBinary(count: number, trials: number): boolean {
  return Number.isInteger(count) && Number.isInteger(trials) && count >= 0 && count <= trials;
}

/** Everything about one binary rate, or null when the counts are not binary (e.g. more clicks than visitors). */
/**
 * Analyses by counts, most recent last: the same counts come back often (a test reopened, the report after
 * the alerts, the CVR and the goal of one test), and an analysis depends on nothing else. Bounded, so a
 * report over every test does not keep them all.
 */
const CACHE_SIZE = 2048;
const cache = new Map<string, BinaryMetricAnalysis>();

export function analyseBinary(control: BinarySide, variant: BinarySide, rate: BinaryRate): BinaryMetricAnalysis | null {
  const a = binaryCounts(control, rate);
  const b = binaryCounts(variant, rate);
  if (!isBinary(a.count, a.trials) || !isBinary(b.count, b.trials)) return null;
  const key = `${a.count}/${a.trials}:${b.count}/${b.trials}`;
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return { ...cached };
  }
  const analysis = analyseCounts(a, b);
  cache.set(key, analysis);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  return { ...analysis };
}

function analyseCounts(a: { count: number; trials: number }, b: { count: number; trials: number }): BinaryMetricAnalysis {
  const controlPosterior = posteriorOf(a.count, a.trials);
  const variantPosterior = posteriorOf(b.count, b.trials);
  const logs = { control: logPosterior(controlPosterior), variant: logPosterior(variantPosterior) };
  const comparison = compareRates(controlPosterior, variantPosterior, logs);
  const interval = liftInterval(controlPosterior, variantPosterior, undefined, logs);
  const controlRate = a.trials > 0 ? a.count / a.trials : 0;
  const variantRate = b.trials > 0 ? b.count / b.trials : 0;
  return {
    pWin: comparison.pWin,
    expectedLossVariant: comparison.expectedLossVariant,
    expectedLossControl: comparison.expectedLossControl,
    liftCiLow: interval.low,
    liftCiHigh: interval.high,
    observedLift: controlRate > 0 ? variantRate / controlRate - 1 : null,
    controlCount: a.count,
    controlTrials: a.trials,
    variantCount: b.count,
    variantTrials: b.trials,
    method: comparison.method,
  };
}

export function analysePerMetric(control: SideStatistics, variant: SideStatistics): PerMetric {
  return {
    cvr: analyseBinary(control, variant, 'cvr'),
    acr: analyseBinary(control, variant, 'acr'),
    ctr: analyseBinary(control, variant, 'ctr'),
  };
}
