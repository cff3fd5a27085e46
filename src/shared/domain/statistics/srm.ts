// Sample-ratio mismatch: do the visitors split as the test was configured? Chi-square goodness of fit, 1 dof.
//
// A mismatch means the assignment or the tracking is broken (a redirect that loses visitors, a bot filter
// that hits one side): the test's numbers cannot be trusted whatever they say. The threshold is strict
// (p < 0.001) because every live test is checked every day, and a looser one would cry wolf.
import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import type { Day } from './daily';

/** Alarm below this p-value. */
export const SRM_ALARM_P = 0.001;
/** Not judged below this many visitors in total: a handful of visitors can split any way. */
export const SRM_MIN_TOTAL_VISITORS = 200;
/** Nor when a side expects fewer visitors than this (the chi-square approximation needs >= 5). */
export const SRM_MIN_EXPECTED_PER_SIDE = 5;

export type SrmCheck = {
  judged: boolean;
  /** Why it was not judged, in words a client understands; null when judged. */
  reason: string | null;
  chiSquare: number | null;
  pValue: number | null;
  mismatch: boolean;
  /** The control's configured share of traffic (0..1), normalised from the two traffic settings. */
  expectedControlShare: number | null;
  observedControlShare: number | null;
};

function notJudged(reason: string, expectedControlShare: number | null, observedControlShare: number | null): SrmCheck {
  return { judged: false, reason, chiSquare: null, pValue: null, mismatch: false, expectedControlShare, observedControlShare };
}

/** Chi-square test of (control, variant) visitors against the configured traffic split (any two weights). */
export function sampleRatioTest(controlVisitors: number, variantVisitors: number, controlTraffic: number, variantTraffic: number): SrmCheck {
  const total = controlVisitors + variantVisitors;
  const observed = total > 0 ? controlVisitors / total : null;
  const weights = controlTraffic + variantTraffic;
  if (!(controlTraffic > 0) || !(variantTraffic > 0) || !Number.isFinite(weights)) {
    return notJudged('The configured traffic split gives a side no traffic.', null, observed);
  }
  const share = controlTraffic / weights;
  if (total < SRM_MIN_TOTAL_VISITORS) {
    return notJudged(`Too few visitors to judge (${total}; at least ${SRM_MIN_TOTAL_VISITORS} needed).`, share, observed);
  }
  const expectedControl = total * share;
  const expectedVariant = total - expectedControl;
  if (Math.min(expectedControl, expectedVariant) < SRM_MIN_EXPECTED_PER_SIDE) {
    return notJudged(`Too few visitors expected on one side (fewer than ${SRM_MIN_EXPECTED_PER_SIDE}).`, share, observed);
  }
  const chiSquare =
    (controlVisitors - expectedControl) ** 2 / expectedControl + (variantVisitors - expectedVariant) ** 2 / expectedVariant;
  const pValue = 1 - chisquareCdf(chiSquare, 1);
  return {
    judged: true,
    reason: null,
    chiSquare,
    pValue,
    mismatch: pValue < SRM_ALARM_P,
    expectedControlShare: share,
    observedControlShare: observed,
  };
}

/**
 * The first date from which the cumulative split stays mismatched to the last day, or null.
 * Daily visitors are unique per day, so their running sum counts a returning visitor again each day;
 * both sides are counted alike, so the split is still the one the assignment produced.
 */
export function srmOnset(days: readonly Day[], controlTraffic: number, variantTraffic: number): string | null {
  let control = 0;
  let variant = 0;
  const mismatched: boolean[] = [];
  for (const day of days) {
    control += day.control.visitors;
    variant += day.variant.visitors;
    mismatched.push(sampleRatioTest(control, variant, controlTraffic, variantTraffic).mismatch);
  }
  let onset: string | null = null;
  for (let i = days.length - 1; i >= 0 && mismatched[i]; i--) onset = days[i]?.date ?? onset;
  return onset;
}
