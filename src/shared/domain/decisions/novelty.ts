// A lift that fades: the first week against the days since. A variant that looks new draws clicks for a
// few days (novelty) and then nothing; a call made on the whole run would ship an effect that is gone.
// The flag never changes the call: it asks the consultant to look.
import type { GoalMetric, SideSums } from './estimates';
import { addSide, EMPTY_SUMS, estimateOf } from './estimates';
import { signedPercent } from './words';

/** The first period's length and the least days after it before the two are compared. */
export const FADING_WEEK = 7;
/**
 * z of the difference between the periods, towards zero, that counts as clear (one-sided 1%): by
 * simulation it flags about 2% of A/A and of lasting-effect tests by day 28, and about half of the
 * tests shipped on a lift that was gone after week 1 (docs/decisions.md).
 */
export const FADING_Z = 2.33;

export type Fading = { early: number; since: number; text: string };

/**
 * The fading of a goal's lift over `days` (the completed days, in order): flagged when week 1's lift
 * differs from the lift since by more than FADING_Z standard errors, towards zero, and the lift since
 * is under half of week 1's. Null otherwise, or with under two weeks of data.
 */
export function fadingOf(
  metric: GoalMetric,
  days: readonly { control: SideSums; variant: SideSums }[],
): Fading | null {
  if (days.length < 2 * FADING_WEEK) return null;
  const sums = (part: readonly { control: SideSums; variant: SideSums }[]) => {
    let control = EMPTY_SUMS;
    let variant = EMPTY_SUMS;
    for (const day of part) {
      control = addSide(control, day.control);
      variant = addSide(variant, day.variant);
    }
    return estimateOf(metric, control, variant, part);
  };
  const first = sums(days.slice(0, FADING_WEEK));
  const rest = sums(days.slice(FADING_WEEK));
  if (first === null || rest === null) return null;
  const z = (first.theta - rest.theta) / Math.sqrt(first.variance + rest.variance);
  const towardsZero = Math.sign(first.theta) * z;
  if (!(towardsZero >= FADING_Z) || !(Math.abs(rest.theta) < Math.abs(first.theta) / 2)) return null;
  const early = Math.expm1(first.theta);
  const since = Math.expm1(rest.theta);
  return { early, since, text: `the lift is fading: ${signedPercent(early)} in week 1, ${signedPercent(since)} since` };
}
