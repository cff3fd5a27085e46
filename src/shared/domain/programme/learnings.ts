// What a programme's tests taught, over a period: how many concluded and how (by Splitbook's call on
// the goal), the win rate, the typical lifts of winners and losers, the time to a decision, broken
// down by tag, surface area and goal; concluded tests per month and the spread of goal lifts.
import type { DecisionCall } from '../decisions/schemas';

/** The calls that conclude a test. */
export const CONCLUDING_CALLS: readonly DecisionCall[] = ['ship', 'keep_control', 'no_difference'];

/**
 * Each call as a count of tests, named for what it is: Splitbook recommends; whether the store shipped
 * the variant the API does not say ("Recommended to ship" is not "Shipped"). One set of words for the
 * Portfolio, Learnings, the client report and their exports.
 */
export const CALL_COUNT_WORDS: Record<DecisionCall, string> = {
  ship: 'Recommended to ship',
  keep_control: 'Recommended to keep the control',
  no_difference: 'No meaningful difference',
  keep_running: 'Still running',
  paused: 'Paused',
  check_data: 'Check the data first',
  cannot_conclude: 'Cannot conclude',
};

/** The one win rate: tests recommended to ship ÷ tests concluded (ship, keep the control, no difference). */
export const WIN_RATE_WORDS = 'Win rate: recommended to ship ÷ concluded (ship, keep the control or no difference)';

/** The win rate of some concluded counts, or null without any. */
export function winRate(counts: { ship: number; keepControl: number; noDifference: number }): number | null {
  const concluded = counts.ship + counts.keepControl + counts.noDifference;
  return concluded > 0 ? counts.ship / concluded : null;
}

export type ConcludedTest = {
  storeId: string;
  testId: string;
  title: string;
  call: DecisionCall;
  /** The goal's relative lift (fraction) at the call. */
  lift: number | null;
  /** Days from launch to the call. */
  days: number | null;
  /** 'YYYY-MM-DD' of the call's data. */
  decidedOn: string | null;
  tags: readonly string[];
  surfaceArea: string | null;
  goal: string;
};

export type Breakdown = {
  key: string;
  concluded: number;
  wins: number;
  losses: number;
  flat: number;
  /** wins ÷ concluded. */
  winRate: number | null;
  medianLift: number | null;
};

export type Learnings = {
  concluded: number;
  ship: number;
  keepControl: number;
  noDifference: number;
  winRate: number | null;
  noDifferenceRate: number | null;
  medianWinnerLift: number | null;
  medianLoserLift: number | null;
  medianDaysToDecision: number | null;
  byTag: Breakdown[];
  bySurfaceArea: Breakdown[];
  byGoal: Breakdown[];
  perMonth: { month: string; ship: number; keepControl: number; noDifference: number }[];
  /** Goal lifts of concluded tests in 5-point bins from −25% to +25% (the ends open). */
  liftHistogram: { from: number | null; to: number | null; count: number }[];
};

export function median(values: readonly number[]): number | null {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? null) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function breakdown(tests: readonly ConcludedTest[], keys: (t: ConcludedTest) => readonly string[]): Breakdown[] {
  const groups = new Map<string, ConcludedTest[]>();
  for (const test of tests) for (const key of keys(test)) groups.set(key, [...(groups.get(key) ?? []), test]);
  return [...groups.entries()]
    .map(([key, group]) => {
      const wins = group.filter((t) => t.call === 'ship').length;
      return {
        key,
        concluded: group.length,
        wins,
        losses: group.filter((t) => t.call === 'keep_control').length,
        flat: group.filter((t) => t.call === 'no_difference').length,
        winRate: group.length > 0 ? wins / group.length : null,
        medianLift: median(group.flatMap((t) => (t.lift === null ? [] : [t.lift]))),
      };
    })
    .sort((a, b) => b.concluded - a.concluded || a.key.localeCompare(b.key));
}

const BIN = 0.05;
const EDGE = 0.25;

export function learnings(all: readonly ConcludedTest[]): Learnings {
  const tests = all.filter((t) => CONCLUDING_CALLS.includes(t.call));
  const count = (call: DecisionCall) => tests.filter((t) => t.call === call).length;
  const ship = count('ship');
  const keepControl = count('keep_control');
  const noDifference = count('no_difference');
  const concluded = tests.length;
  const lifts = (call: DecisionCall) => tests.flatMap((t) => (t.call === call && t.lift !== null ? [t.lift] : []));
  const months = new Map<string, { ship: number; keepControl: number; noDifference: number }>();
  for (const t of tests) {
    if (t.decidedOn === null) continue;
    const month = t.decidedOn.slice(0, 7);
    const entry = months.get(month) ?? { ship: 0, keepControl: 0, noDifference: 0 };
    if (t.call === 'ship') entry.ship += 1;
    else if (t.call === 'keep_control') entry.keepControl += 1;
    else entry.noDifference += 1;
    months.set(month, entry);
  }
  const bins: Learnings['liftHistogram'] = [{ from: null, to: -EDGE, count: 0 }];
  for (let from = -EDGE; from < EDGE - 1e-9; from += BIN) bins.push({ from: Number(from.toFixed(4)), to: Number((from + BIN).toFixed(4)), count: 0 });
  bins.push({ from: EDGE, to: null, count: 0 });
  for (const t of tests) {
    const lift = t.lift;
    if (lift === null) continue;
    const bin = bins.find((b) => (b.from === null || lift >= b.from) && (b.to === null || lift < b.to));
    if (bin) bin.count += 1;
  }
  return {
    concluded,
    ship,
    keepControl,
    noDifference,
    winRate: winRate({ ship, keepControl, noDifference }),
    noDifferenceRate: concluded > 0 ? noDifference / concluded : null,
    medianWinnerLift: median(lifts('ship')),
    medianLoserLift: median(lifts('keep_control')),
    medianDaysToDecision: median(tests.flatMap((t) => (t.days === null ? [] : [t.days]))),
    byTag: breakdown(tests, (t) => (t.tags.length > 0 ? t.tags : ['(no tag)'])),
    bySurfaceArea: breakdown(tests, (t) => [t.surfaceArea ?? '(not set)']),
    byGoal: breakdown(tests, (t) => [t.goal]),
    perMonth: [...months.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([month, v]) => ({ month, ...v })),
    liftHistogram: bins,
  };
}
