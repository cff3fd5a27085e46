// Guardrails: the metrics a call watches besides its goal, so a goal that wins while the store loses
// money is not shipped. Each is judged at the call's look with the call's own boundary (the same error
// control): clearly worse when its interval lies wholly below zero.
import type { GoalMetric, SideSums } from './estimates';
import { estimateOf, halfWidth } from './estimates';
import type { GuardrailCheck, GuardrailChoice } from './schemas';
import { metricWords, signedPercent } from './words';

/**
 * The guardrail metrics of a goal: the chosen list less the goal itself, or by default revenue per
 * visitor for every goal but revenue per visitor, and conversion rate too for average order value (a
 * higher order value bought with fewer orders can lose money).
 */
export function guardrailsFor(goal: GoalMetric, choice: GuardrailChoice): GoalMetric[] {
  if (choice !== 'default') return choice.filter((metric) => metric !== goal);
  if (goal === 'rpv') return [];
  if (goal === 'aov') return ['rpv', 'cvr'];
  return ['rpv'];
}

/** One guardrail at a look: its lift and interval at the boundary c (normal scale), and what it says. */
export function checkGuardrail(
  metric: GoalMetric,
  control: SideSums,
  variant: SideSums,
  days: readonly { control: SideSums; variant: SideSums }[],
  boundary: number,
): GuardrailCheck {
  const estimate = estimateOf(metric, control, variant, days);
  const name = metricWords(metric);
  if (estimate === null || !(estimate.variance > 0) || !Number.isFinite(boundary)) {
    return { metric, verdict: 'not-judged', lift: null, low: null, high: null, text: `${name} not judged (too few events)` };
  }
  const half = halfWidth(estimate, boundary);
  const lift = Math.expm1(estimate.theta);
  const low = Math.expm1(estimate.theta - half);
  const high = Math.expm1(estimate.theta + half);
  const verdict = high < 0 ? 'worse' : low > 0 ? 'better' : 'unclear';
  return {
    metric,
    verdict,
    lift,
    low,
    high,
    text: `${name} ${signedPercent(lift)} (${signedPercent(low)} to ${signedPercent(high)})`,
  };
}

/** Why a clearly worse guardrail matters, in words. */
export function worseWords(check: GuardrailCheck): string {
  return check.metric === 'rpv' ? 'the variant loses money' : `the variant lowers ${metricWords(check.metric)}`;
}
