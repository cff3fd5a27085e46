// What one call's sentences and figures are made from, gathered once (decide.ts decideFrom), and the
// median-unbiased lift the call and its words share.
import { type GoalMetric } from './estimates';
import { equivalenceHole, medianUnbiased, type PastLook } from './forecast';
import { bandOf, type Look, type Walked } from './looks';
import {
  type Decision,
  type DecisionFacts,
  type DecisionPlan,
  type DecisionSettings,
  type GoalFigures,
  type Guard,
} from './schemas';

/** Everything one call's sentences and figures are made from, gathered once. */
export type Context = {
  facts: DecisionFacts;
  metric: GoalMetric;
  settings: DecisionSettings;
  walked: Walked;
  guards: Guard[];
  goal: GoalFigures | null;
  plan: DecisionPlan | null;
  base: Pick<Decision, 'settings' | 'version' | 'guards' | 'goal' | 'plan' | 'odds' | 'flags' | 'guardrails' | 'forecast'>;
  settingsWords: string;
  planText: string;
};

/** The median-unbiased lift at a group sequential crossing, from the path of looks that led to it. */
export function adjustedLift(walked: Walked, call: Look): number | null {
  const looks = walked.looks.filter((look) => look.method === 'group-sequential' && look.dayNumber <= call.dayNumber);
  // On the walk's information scale; the estimate's scale differs by the call look's ratio (revenue).
  const scale = 1 / call.estimate.variance / call.walkInfo;
  const sign = call.z > 0 ? 1 : -1;
  const past: PastLook[] = looks.map((look) => {
    const band = bandOf(look.settings);
    const hole = equivalenceHole(look.walkInfo * scale, look.boundary, sign > 0 ? band : { low: -band.high, high: -band.low });
    return { info: look.walkInfo * scale, boundary: look.boundary, hole };
  });
  const info = call.walkInfo * scale;
  const eta = medianUnbiased(past, sign * call.z * Math.sqrt(info));
  return Number.isFinite(eta) ? Math.expm1(sign * eta) : null;
}
