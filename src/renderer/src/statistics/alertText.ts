// Words for the data-quality alert codes (shared/domain/statistics) where only the code is at hand: the test list.
import type { AlertCode } from '#shared/domain/statistics/index';

/** A short name and a one-line explanation a client would understand, per alert code. */
export const ALERT_TEXT: Record<AlertCode, { name: string; explanation: string }> = {
  'early-significance': {
    name: 'Called early',
    explanation:
      'Called significant on too little data (under 3 days or 30 orders a side): early results often fade.',
  },
  'implausible-lift': {
    name: 'Implausible lift',
    explanation:
      'The goal metric moved by more than 50%: changes this large usually mean a tracking or setup problem.',
  },
  'sample-ratio-mismatch': {
    name: 'Sample-ratio mismatch',
    explanation:
      'Visitors did not split as configured: something drops or misroutes visitors, so results may be wrong.',
  },
  'daily-totals-mismatch': {
    name: 'Daily ≠ totals',
    explanation:
      'Orders or revenue by day do not add up to the totals: some data may be missing or counted twice.',
  },
  'missing-days': {
    name: 'Missing days',
    explanation:
      'Days of the test are missing from the daily figures: the curves over time have gaps.',
  },
  'probability-model-differs': {
    name: 'Different model',
    explanation:
      "The store's probability to win differs from Splitbook's by over 10 points: the store uses another model.",
  },
  'probabilities-do-not-sum-to-one': {
    name: 'Probabilities ≠ 1',
    explanation: "The store's probabilities to win of the two sides do not add up to 1.",
  },
  'contradictory-counts': {
    name: 'Contradictory counts',
    explanation:
      'Counts contradict each other (e.g. more conversions than visitors, or rates that do not match).',
  },
};

/** The text of a code, or the raw code for one this version does not know (a newer cache). */
export function alertText(code: string): { name: string; explanation: string } {
  return (
    (ALERT_TEXT as Record<string, { name: string; explanation: string }>)[code] ?? {
      name: code,
      explanation: code,
    }
  );
}

/** The tooltip of a list cell: one line per distinct alert. */
export function alertsTooltip(codes: readonly string[]): string {
  return [...new Set(codes)]
    .map((code) => `• ${alertText(code).name}: ${alertText(code).explanation}`)
    .join('\n');
}
