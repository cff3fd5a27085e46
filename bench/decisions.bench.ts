// Decisions benchmark: the CI simulations of test/statistics/decision-simulation.test.ts with more
// trials (BENCH_DECISION_TRIALS, default 4,000), every figure printed: A/A false calls by goal, tail
// weight and paused days; power beside a fixed-horizon (and, for revenue, visitor-level) test; how
// often true effects are first told "cannot conclude"; the forecast's calibration; guardrails,
// practical significance and fading lifts; and what a call costs.
import { decideTest, DEFAULT_DECISION_SETTINGS, FORECAST_PRIOR } from '#shared/domain/decisions/index';
import {
  calibration,
  callOn,
  cannotConcludeFirst,
  seeded,
  tally,
  trialOf,
  worstGap,
  type Calibration,
  type Scenario,
} from '../test/statistics/decision-trials';
import { resultsOf, testOf } from '../test/statistics/support';
import { fmt, printFigures, type Figure } from './support';

const TRIALS = Number(process.env.BENCH_DECISION_TRIALS ?? 4000);
const SPEED_TESTS = 10_000;

const pct = (n: number, of: number) => `${fmt((n / of) * 100, 1)}%`;
const both = (scenario: Scenario, lift: 'conversionLift' | 'valueLift', size: number): Scenario[] => [
  { ...scenario, [lift]: size },
  { ...scenario, [lift]: -size },
];

function falseCalls(): Figure[] {
  const figures: Figure[] = [];
  let seed = 31;
  const rows: [string, Scenario][] = [
    ['conversion rate', { goal: 'conversion-rate' }],
    ['conversion rate, 2 paused days', { goal: 'conversion-rate', pausedDays: 2 }],
  ];
  for (const goal of ['revenue-per-visitor', 'average-order-value'] as const) {
    for (const sigma of [1, 1.5, 2]) rows.push([`${goal === 'revenue-per-visitor' ? 'revenue per visitor' : 'average order value'}, log-sd ${sigma}`, { goal, sigma }]);
    rows.push([`${goal === 'revenue-per-visitor' ? 'revenue per visitor' : 'average order value'}, log-sd 2, 2 paused days`, { goal, sigma: 2, pausedDays: 2 }]);
  }
  for (const [name, scenario] of rows) {
    const result = tally(seeded(seed++), TRIALS, [scenario]);
    figures.push({
      name: `A/A, ${name}`,
      value: `${pct(result.wrong, TRIALS)} (fixed horizon at day 28: ${pct(result.fixed.wrong, TRIALS)}${scenario.goal === 'conversion-rate' ? `; chance to win ≥ 95% read daily: ${pct(result.peeking.wrong, TRIALS)}` : ''})`,
      goal: '≤ 5%',
    });
  }
  return figures;
}

function power(): Figure[] {
  const figures: Figure[] = [];
  let seed = 41;
  const rows: [string, Scenario[], string][] = [
    ['conversion rate ±12%', both({ goal: 'conversion-rate' }, 'conversionLift', 0.12), '≥ 90% of fixed horizon'],
    ['conversion rate ±12%, 2 paused days', both({ goal: 'conversion-rate', pausedDays: 2 }, 'conversionLift', 0.12), '≥ 90% of fixed horizon'],
    ['revenue per visitor ±12% (conversion), log-sd 1', both({ goal: 'revenue-per-visitor', sigma: 1 }, 'conversionLift', 0.12), 'reported against a visitor-level test'],
    ['average order value ±12%, log-sd 1', both({ goal: 'average-order-value', sigma: 1 }, 'valueLift', 0.12), 'reported against a visitor-level test'],
  ];
  for (const [name, scenarios, goal] of rows) {
    const result = tally(seeded(seed++), TRIALS / 2, scenarios);
    figures.push({
      name,
      value: `right ${pct(result.right, result.tests)} = ${fmt((result.right / Math.max(1, result.fixed.right)) * 100, 0)}% of the fixed horizon's ${pct(result.fixed.right, result.tests)}; wrong side ${pct(result.wrong, result.tests)}${scenarios[0]?.goal === 'conversion-rate' ? `; always-valid (GrowthBook default) ${pct(result.alwaysValid.right, result.tests)}` : ''}`,
      goal,
    });
  }
  return figures;
}

function calibrationFigure(name: string, bins: Calibration, forecasts: number): Figure {
  const shown = bins
    .filter((bin) => bin.tests >= 30)
    .map((bin) => `${fmt((bin.told / bin.tests) * 100, 0)}→${fmt((bin.happened / bin.tests) * 100, 0)}`)
    .join(' ');
  return { name, value: `worst gap ${fmt(worstGap(bins, 100), 1)} points over bins of 100+ (${forecasts} forecasts; told→happened %: ${shown})` };
}

function words(): Figure[] {
  const cc = cannotConcludeFirst(seeded(51), Math.min(TRIALS / 2, 1500), both({ goal: 'conversion-rate' }, 'conversionLift', 0.12));
  const figures: Figure[] = [
    { name: 'true ±12%: told "cannot conclude", later the right call', value: pct(cc.thenRight, 1), goal: '≤ 3% (audit: 22%)' },
    { name: 'true ±12%: told "cannot conclude" at some point (at traffic too low to call them)', value: pct(cc.toldFirst, 1) },
    { name: 'true ±12%: the right call by day 28, read daily', value: pct(cc.right, 1) },
  ];
  const programmes: [string, Scenario[]][] = [
    ['forecast, a programme like its prior (half no effect)', [{ goal: 'conversion-rate', drawn: FORECAST_PRIOR }]],
    ['forecast, half A/A and half ±12%', [{ goal: 'conversion-rate' }, { goal: 'conversion-rate' }, ...both({ goal: 'conversion-rate' }, 'conversionLift', 0.12)]],
    ['forecast, A/A only', [{ goal: 'conversion-rate' }]],
    ['forecast, ±12% only', both({ goal: 'conversion-rate' }, 'conversionLift', 0.12)],
  ];
  let seed = 52;
  for (const [name, scenarios] of programmes) {
    const { bins, forecasts } = calibration(seeded(seed++), TRIALS / 2, scenarios, [7, 10, 14]);
    figures.push(calibrationFigure(name, bins, forecasts));
  }
  return figures;
}

function rules(): Figure[] {
  const figures: Figure[] = [];
  const count = Math.min(TRIALS / 4, 1000);
  const share = (scenario: Scenario, day: number, seed: number, pick: (d: ReturnType<typeof callOn>) => boolean) => {
    const random = seeded(seed);
    let hits = 0;
    for (let i = 0; i < count; i++) if (pick(callOn(trialOf(random, scenario), day))) hits += 1;
    return pct(hits, count);
  };
  const guarded: Scenario = { goal: 'average-order-value', valueLift: 0.15, conversionLift: -0.27, sigma: 1, perDay: 3000, rate: 0.04 };
  figures.push({ name: 'order value +15%, conversion −27% (revenue per visitor −16%): shipped by day 28', value: share(guarded, 28, 61, (d) => d.call === 'ship'), goal: 'none (audit: shipped)' });
  const rising: Scenario = { goal: 'conversion-rate', conversionLift: 0.12, valueLift: -0.25, sigma: 1, perDay: 3000, rate: 0.04 };
  figures.push({ name: 'conversion +12%, revenue per visitor −16%: shipped by day 28', value: share(rising, 28, 62, (d) => d.call === 'ship') });
  const small: Scenario = { goal: 'conversion-rate', conversionLift: 0.01, perDay: 300_000, rate: 0.03 };
  figures.push({ name: '+1% at 300,000 visitors a side a day: shipped on day 21', value: share(small, 21, 63, (d) => d.call === 'ship'), goal: 'none' });
  const early: Scenario = { goal: 'conversion-rate', conversionLift: 0.05, perDay: 50_000, rate: 0.03 };
  figures.push({ name: '+5% (the minimum effect) at 50,000 a side a day: "no difference" on day 7', value: share(early, 7, 64, (d) => d.call === 'no_difference'), goal: 'none (audit: 100 of 150)' });
  const fading: Scenario = { goal: 'conversion-rate', conversionLift: 0.15, effectDays: 7, perDay: 3000, rate: 0.03 };
  figures.push({ name: '+15% in week 1 only: shipped by day 28', value: share(fading, 28, 65, (d) => d.call === 'ship'), goal: 'the call stands; flagged' });
  figures.push({ name: '+15% in week 1 only: shipped and flagged fading', value: share(fading, 28, 65, (d) => d.call === 'ship' && d.flags.fading !== null) });
  figures.push({ name: 'A/A: flagged fading on day 28', value: share({ goal: 'conversion-rate' }, 28, 66, (d) => d.flags.fading !== null) });
  return figures;
}

function cost(): Figure[] {
  const random = seeded(33);
  const test = testOf({ status: 'active', endAt: null, startAt: '2026-05-01T00:00:00Z', automaticallyEndAt: null });
  const inputs = Array.from({ length: SPEED_TESTS }, () => {
    const perDay = 100 + Math.floor(random() * 4900);
    const rate = 0.01 + random() * 0.04;
    const lift = -0.1 + random() * 0.25;
    const days = 7 + Math.floor(random() * 54);
    return resultsOf(
      Array.from({ length: days }, () => {
        const visitors = Math.max(1, Math.round(perDay * (0.8 + 0.4 * random())));
        const conversions = (r: number) => Math.min(visitors, Math.round(visitors * r * (0.85 + 0.3 * random())));
        return { control: { visitors, conversions: conversions(rate) }, variant: { visitors, conversions: conversions(rate * (1 + lift)) } };
      }),
    );
  });
  for (const results of inputs.slice(0, 200)) decideTest({ test, results, settings: DEFAULT_DECISION_SETTINGS });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const calls: Record<string, number> = {};
  for (const results of inputs) {
    const call = decideTest({ test, results, settings: DEFAULT_DECISION_SETTINGS })?.call ?? 'none';
    calls[call] = (calls[call] ?? 0) + 1;
  }
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return [
    { name: 'all tests', value: `${fmt(wall, 0)} ms (CPU ${fmt((cpu.user + cpu.system) / 1000, 0)} ms)` },
    { name: 'per test', value: `${fmt((wall / SPEED_TESTS) * 1000, 0)} µs` },
    { name: 'calls', value: Object.entries(calls).map(([call, n]) => `${call} ${n}`).join(', ') },
  ];
}

export async function benchDecisions(): Promise<void> {
  const started = performance.now();
  printFigures(`Decisions: A/A false calls, read daily from day 7 to 28 (${TRIALS} tests each; 300–3,000 visitors a side a day, uneven days, 1–5% conversion)`, falseCalls());
  printFigures(`Decisions: true effects found by day 28 (${TRIALS / 2} tests each)`, power());
  printFigures('Decisions: the words around the call', words());
  printFigures('Decisions: guardrails, practical significance, fading lifts (3,000 visitors a side a day unless said)', rules());
  printFigures(`Decisions: decideTest over ${SPEED_TESTS} synthetic tests (7–60 days)`, cost());
  console.log(`\n  (simulations took ${fmt((performance.now() - started) / 1000, 0)} s)`);
}
