// Decisions benchmark: how often each way of making the call is wrong on A/A tests and how many true
// ±12% lifts it finds by day 28 (a larger run than the CI test's), and what a call costs per test.
import { decideTest, DEFAULT_DECISION_SETTINGS } from '#shared/domain/decisions/index';
import { seeded, tally, trialsOf, type Outcome } from '../test/statistics/decision-trials';
import { resultsOf, testOf } from '../test/statistics/support';
import { fmt, printFigures } from './support';

const AA_TRIALS = Number(process.env.BENCH_DECISION_TRIALS ?? 5000);
const EFFECT_TRIALS = AA_TRIALS;
const SPEED_TESTS = 10_000;

const METHODS: Record<keyof Outcome, string> = {
  sequential: "Splitbook (group sequential, O'Brien–Fleming spending, read daily)",
  fixed: 'fixed horizon, read once on day 28',
  alwaysValid: 'always-valid interval, GrowthBook default tuning (N* 5,000), read daily',
  peeking: 'chance to win ≥ 95% read daily (no rule)',
};

export async function benchDecisions(): Promise<void> {
  const started = performance.now();
  const aaRandom = seeded(31);
  const aa = tally(trialsOf(aaRandom, AA_TRIALS, [0]), aaRandom, undefined, false);
  const fxRandom = seeded(32);
  const fx = tally(trialsOf(fxRandom, EFFECT_TRIALS, [0.12, -0.12]), fxRandom, undefined, false);
  const simulated = performance.now() - started;
  const pct = (n: number, of: number) => `${fmt((n / of) * 100, 1)}%`;
  printFigures(
    `Decisions checked daily from day 7 to 28: ${AA_TRIALS} A/A tests and ${EFFECT_TRIALS} with true ±12% lifts ` +
      `(300–3,000 visitors a side a day, 1–5% conversion; ${fmt(simulated / 1000, 0)} s)`,
    (Object.keys(METHODS) as (keyof Outcome)[]).flatMap((method) => [
      {
        name: `${METHODS[method]}: A/A false calls`,
        value: pct(aa.wrong[method], aa.tests),
        goal: method === 'sequential' ? '≤ 5%' : undefined,
      },
      {
        name: `${METHODS[method]}: right side by day 28`,
        value: `${pct(fx.right[method], fx.tests)} = ${fmt((fx.right[method] / Math.max(1, fx.right.fixed)) * 100, 0)}% of fixed horizon`,
        goal: method === 'sequential' ? '≥ 90% of fixed horizon' : undefined,
      },
      {
        name: `${METHODS[method]}: wrong side`,
        value: pct(fx.wrong[method], fx.tests),
        goal: method === 'sequential' ? '≤ 1%' : undefined,
      },
    ]),
  );

  // Cost of a call: 10,000 tests of 7–60 days, as a sync or a settings change re-decides them.
  const random = seeded(33);
  const test = testOf({
    status: 'active',
    endAt: null,
    startAt: '2026-05-01T00:00:00Z',
    automaticallyEndAt: null,
  });
  const inputs = Array.from({ length: SPEED_TESTS }, () => {
    const perDay = 100 + Math.floor(random() * 4900);
    const rate = 0.01 + random() * 0.04;
    const lift = -0.1 + random() * 0.25;
    const days = 7 + Math.floor(random() * 54);
    return resultsOf(
      Array.from({ length: days }, () => {
        const visitors = Math.max(1, Math.round(perDay * (0.8 + 0.4 * random())));
        const conversions = (r: number) =>
          Math.min(visitors, Math.round(visitors * r * (0.85 + 0.3 * random())));
        return {
          control: { visitors, conversions: conversions(rate) },
          variant: { visitors, conversions: conversions(rate * (1 + lift)) },
        };
      }),
    );
  });
  for (const results of inputs.slice(0, 200))
    decideTest({ test, results, settings: DEFAULT_DECISION_SETTINGS });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const results of inputs) decideTest({ test, results, settings: DEFAULT_DECISION_SETTINGS });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  printFigures(`Decisions: decideTest over ${SPEED_TESTS} synthetic tests (7–60 days)`, [
    { name: 'all tests', value: `${fmt(wall, 0)} ms` },
    { name: 'all tests, CPU time', value: `${fmt((cpu.user + cpu.system) / 1000, 0)} ms` },
    { name: 'per test', value: `${fmt((wall / SPEED_TESTS) * 1000, 0)} µs` },
  ]);
}
