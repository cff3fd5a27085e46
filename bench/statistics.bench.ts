// Statistics benchmark: analyseTest over 10,000 synthetic tests, and one 365-day curve over time.
import { analyseTest, overTime, testAlerts } from '#shared/domain/statistics/index';
import { resultsOf, testOf, type DayCounts } from '../test/statistics/support';
import { fmt, percentile, printFigures } from './support';

const TESTS = 10_000;
const NOW = Date.parse('2027-06-01T00:00:00Z');

/** mulberry32: a small seeded generator, so every run measures the same tests. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Days of traffic like a small-to-large store: 100-5,000 visitors a side a day, CVR 1-5%, lift -10%..+15%. */
function syntheticDays(random: () => number, count: number): DayCounts[] {
  const perDay = 100 + Math.floor(random() * 4900);
  const rate = 0.01 + random() * 0.04;
  const lift = -0.1 + random() * 0.25;
  return Array.from({ length: count }, () => {
    const visitors = Math.max(1, Math.round(perDay * (0.8 + 0.4 * random())));
    const conversions = (r: number) =>
      Math.min(visitors, Math.round(visitors * r * (0.85 + 0.3 * random())));
    return {
      control: { visitors, conversions: conversions(rate) },
      variant: { visitors, conversions: conversions(rate * (1 + lift)) },
    };
  });
}

export async function benchStatistics(): Promise<void> {
  const random = seeded(10);
  const test = testOf({ endAt: null });
  const inputs = Array.from({ length: TESTS }, () =>
    resultsOf(syntheticDays(random, 7 + Math.floor(random() * 54))),
  );
  // Warm the JIT on a few tests, as the app would after its first screen.
  for (const results of inputs.slice(0, 200)) analyseTest(test, results, { now: NOW });
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let quadrature = 0;
  for (const results of inputs) {
    const analysis = analyseTest(test, results, { now: NOW });
    for (const metric of [analysis.perMetric.cvr, analysis.perMetric.acr, analysis.perMetric.ctr]) {
      if (metric?.method === 'quadrature') quadrature++;
    }
  }
  const total = performance.now() - started;
  // CPU time too: on a shared machine the wall clock also counts other processes' turns.
  const cpu = process.cpuUsage(cpuStarted);
  const cpuMs = (cpu.user + cpu.system) / 1000;

  // What a sync stores per test for the list (src/main/core/db/results.ts): the alerts alone.
  const alertsStarted = performance.now();
  const alertsCpuStarted = process.cpuUsage();
  for (const results of inputs) testAlerts(test, results, { now: NOW });
  const alertsTotal = performance.now() - alertsStarted;
  const alertsCpu = process.cpuUsage(alertsCpuStarted);

  // The same tests again: every binary analysis comes from the per-counts cache (a test reopened).
  const again = inputs.slice(0, 1000);
  for (const results of again) analyseTest(test, results, { now: NOW });
  const againStarted = performance.now();
  for (const results of again) analyseTest(test, results, { now: NOW });
  const againTotal = performance.now() - againStarted;

  const year = resultsOf(
    Array.from({ length: 365 }, () => ({
      control: { visitors: 3000, conversions: 90 + Math.floor(random() * 10) },
      variant: { visitors: 3000, conversions: 94 + Math.floor(random() * 10) },
    })),
  );
  overTime(year.daily, 'cvr');
  const curve: number[] = [];
  for (let run = 0; run < 10; run++) {
    const t0 = performance.now();
    overTime(year.daily, 'cvr');
    curve.push(performance.now() - t0);
  }
  curve.sort((a, b) => a - b);

  printFigures(
    `Statistics: analyseTest over ${TESTS} synthetic tests (7-60 days, 100-5,000 visitors a side a day)`,
    [
      { name: 'all tests', value: `${fmt(total, 0)} ms`, goal: '< 1000 ms' },
      { name: 'all tests, CPU time', value: `${fmt(cpuMs, 0)} ms`, goal: '< 1000 ms' },
      { name: 'per test', value: `${fmt((total / TESTS) * 1000, 1)} µs` },
      { name: 'alerts only (list cache)', value: `${fmt(alertsTotal, 0)} ms`, goal: '< 1000 ms' },
      {
        name: 'alerts only, CPU time',
        value: `${fmt((alertsCpu.user + alertsCpu.system) / 1000, 0)} ms`,
      },
      {
        name: 'repeat analysis, per test',
        value: `${fmt((againTotal / again.length) * 1000, 1)} µs (cached counts)`,
      },
      { name: 'metrics by quadrature', value: `${quadrature} of ${TESTS * 3} (the rest exact)` },
      {
        name: 'curve over 365 days, p50',
        value: `${fmt(percentile(curve, 50), 1)} ms`,
        goal: '< 50 ms',
      },
      { name: 'curve over 365 days, max', value: `${fmt(percentile(curve, 100), 1)} ms` },
    ],
  );
}
