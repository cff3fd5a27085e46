// How the API's results read as a verdict (who wins, in words), where its own figures disagree, and how
// long a test ran: rules the Results tab and the test list share. Meanings the API does not state are
// inferred in ./metrics.ts only.
import type { Lifecycle, TestResults } from '../api';
import { isGoalId, metricById, metricOfGoal, relativeLift, spellingKey } from './metrics';

/** Who wins, by the API's lifecycle: its tier says whether it is decided, its leader says who leads. */
export type Winner = 'variant' | 'control' | 'none' | 'unknown';

export interface Verdict {
  winner: Winner;
  /** "Variant better", "Control better", "No difference yet", or the raw values when unknown. */
  words: string;
  /** +, − or none: a verdict never rests on colour alone. */
  sign: '+' | '−' | '';
}

const KNOWN_TIERS: Record<string, string> = {
  learning: 'Learning',
  emerging: 'Emerging',
  significant: 'Significant',
  inconclusive: 'Inconclusive',
};
const KNOWN_SIDES: Record<string, 'control' | 'variant'> = {
  control: 'control',
  variant: 'variant',
};

/** A tier's label; null for a value this version does not know (show the raw text, neutrally). */
export function knownTierLabel(tier: string): string | null {
  return KNOWN_TIERS[spellingKey(tier)] ?? null;
}

/** 'control' or 'variant' whatever the spelling, null for no leader, the raw text for anything else. */
export function sideOf(side: string | null): 'control' | 'variant' | null | { raw: string } {
  if (side === null) return null;
  return KNOWN_SIDES[spellingKey(side)] ?? { raw: side };
}

/** The verdict of one lifecycle: a side wins only when the tier is significant and it leads. */
export function verdictOf(lifecycle: Pick<Lifecycle, 'tier' | 'leadingVariant'>): Verdict {
  const tier = spellingKey(lifecycle.tier);
  const side = sideOf(lifecycle.leadingVariant);
  if (!(tier in KNOWN_TIERS) || (side !== null && typeof side === 'object')) {
    return { winner: 'unknown', words: 'No verdict', sign: '' };
  }
  if (tier !== 'significant' || side === null) {
    return { winner: 'none', words: 'No difference yet', sign: '' };
  }
  return side === 'variant'
    ? { winner: 'variant', words: 'Variant better', sign: '+' }
    : { winner: 'control', words: 'Control better', sign: '−' };
}

/** A lift's tone under a verdict: green or red only for a decided winner, and only in the lift's own direction. */
export function liftTone(
  lift: number | null,
  verdict: Verdict,
): 'positive' | 'negative' | 'inconclusive' {
  if (lift === null || lift === 0) return 'inconclusive';
  if (verdict.winner === 'variant' && lift > 0) return 'positive';
  if (verdict.winner === 'control' && lift < 0) return 'negative';
  return 'inconclusive';
}

/** Two of the API's (or the API's and Splitbook's) figures that say different things. */
export interface Disagreement {
  id: string;
  text: string;
}

const sign = (n: number) => (n > 0 ? 1 : n < 0 ? -1 : 0);
const pct = (n: number) => `${n > 0 ? '+' : n < 0 ? '−' : ''}${Math.abs(n).toFixed(1)}%`;

/** Splitbook's relative lift of a metric, from the sides' values the API sent, or null. */
export function computedLift(results: TestResults, rate: string): number | null {
  const c = results.control[rate as keyof typeof results.control];
  const v = results.variant[rate as keyof typeof results.variant];
  return typeof c === 'number' && typeof v === 'number' ? relativeLift(c, v) : null;
}

/**
 * Every place where two figures about the same thing disagree: the probability to win against the
 * lifecycle's leader, the top-level lift against the leader, and each goal's API lift against the lift
 * Splitbook computes from the sides (which needs the inferred meaning of the goal's id).
 */
export function disagreements(results: TestResults, goal: string): Disagreement[] {
  const found: Disagreement[] = [];
  const p = results.variantProbabilityWin;
  const leader = sideOf(results.lifecycle.leadingVariant);
  const favours = p >= 0.8 ? 'variant' : p <= 0.2 ? 'control' : null;
  if (favours !== null && leader !== favours) {
    const said =
      leader === null
        ? 'names no leader'
        : `names ${typeof leader === 'object' ? `"${leader.raw}"` : `the ${leader}`} as leader`;
    found.push({
      id: 'probability-vs-leader',
      text: `The probability to win favours the ${favours} (${Math.round(
        (favours === 'variant' ? p : 1 - p) * 100,
      )}%), but the API's lifecycle ${said}.`,
    });
  }
  if ((leader === 'variant' && results.lift < 0) || (leader === 'control' && results.lift > 0)) {
    found.push({
      id: 'lift-vs-leader',
      text: `The API's lift is ${pct(results.lift)}, but its lifecycle names the ${leader} as leader.`,
    });
  }
  const own = metricOfGoal(goal);
  if (own) {
    const mine = computedLift(results, own.rate);
    if (
      mine !== null &&
      sign(mine) !== 0 &&
      sign(results.lift) !== 0 &&
      sign(mine) !== sign(results.lift)
    ) {
      found.push({
        id: 'lift-vs-goal',
        text: `The API's lift (${pct(results.lift)}, metric not stated) and the ${own.abbr} lift Splitbook computes from the two sides (${pct(mine)}) point in opposite directions.`,
      });
    }
  }
  for (const [id, entry] of Object.entries(results.liftByMetric)) {
    const metric = metricById(id);
    if (!metric) continue;
    const mine = computedLift(results, metric.rate);
    if (
      mine !== null &&
      sign(mine) !== 0 &&
      sign(entry.value) !== 0 &&
      sign(mine) !== sign(entry.value)
    ) {
      found.push({
        id: `goal-${id}`,
        text: `Goal ${id} (read as ${metric.abbr}): the API's lift is ${pct(entry.value)}, Splitbook's from the sides is ${pct(mine)}.${isGoalId(id, goal) ? ' This is the test goal.' : ''}`,
      });
    }
  }
  return found;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Calendar days from the start to the end (or now), counting both; null without a usable start. */
export function daysRunning(
  startAt: string | null,
  endAt: string | null,
  now: number,
): number | null {
  if (startAt === null) return null;
  const start = Date.parse(startAt);
  const end = endAt === null ? now : Date.parse(endAt);
  if (Number.isNaN(start) || Number.isNaN(end) || end < start) return null;
  return Math.floor(end / DAY_MS) - Math.floor(start / DAY_MS) + 1;
}

/** Days of the daily map that hold data (a sparse map has fewer than the run's length). */
export function daysWithData(daily: TestResults['daily']): number {
  return Object.keys(daily).length;
}
