// The decision checked every day, by simulation with a fixed seed: A/A tests get at most 5% false
// calls, and true ±12% lifts are called on the right side at least 90% as often as a fixed-horizon
// test read once on day 28, on the wrong side at most 1%. `npm run bench -- decisions` runs more.
import { describe, expect, it } from 'vitest';
import { runTrial, seeded, tally, trialsOf } from './decision-trials';

/** Enough that sampling noise (±0.5% at 5%) cannot decide the outcome; ~5 s. */
const TRIALS = 2000;

describe('decisions checked daily (simulated stores, fixed seed)', () => {
  it('A/A tests: at most 5% ever get ship or keep the control; reading the chance to win daily would cry wolf', () => {
    const random = seeded(2026);
    const result = tally(trialsOf(random, TRIALS, [0]), random, undefined, false);
    expect(result.wrong.sequential / TRIALS).toBeLessThanOrEqual(0.05);
    // What the decision replaces: acting on a 95% chance to win read daily calls far more.
    expect(result.wrong.peeking / TRIALS).toBeGreaterThan(0.2);
  });

  it('true ±12% lifts: right-side calls by day 28 reach 90% of a fixed-horizon test\'s, wrong side at most 1%', () => {
    const random = seeded(2027);
    const result = tally(trialsOf(random, TRIALS / 2, [0.12, -0.12]), random, undefined, false);
    expect(result.right.sequential).toBeGreaterThanOrEqual(0.9 * result.right.fixed);
    expect(result.wrong.sequential / result.tests).toBeLessThanOrEqual(0.01);
    // The always-valid interval at GrowthBook's default tuning finds fewer in the same days.
    expect(result.right.alwaysValid).toBeLessThan(result.right.sequential);
  });

  it('reading the decision every day gives the same outcome as reading it once on day 28 (a call stays made)', () => {
    for (const seed of [1, 2, 3]) {
      const trials = trialsOf(seeded(seed), 20, [0.12, -0.12, 0]);
      for (const trial of trials) {
        const daily = runTrial(trial, seeded(seed * 1000 + trials.indexOf(trial)), undefined, true);
        const once = runTrial(trial, seeded(seed * 1000 + trials.indexOf(trial)), undefined, false);
        expect(daily.sequential).toBe(once.sequential);
      }
    }
  });
});
