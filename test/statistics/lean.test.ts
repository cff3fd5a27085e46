// The lean entries the list and the window lean on agree with the full analysis: testAlerts, the per-counts cache.
import { describe, expect, it } from 'vitest';
import { analyseBinary, analyseTest, testAlerts } from '#shared/domain/statistics/index';
import type { TestResults } from '#shared/api/index';
import { evenDays, resultsOf, side, testOf } from './support';

const NOW = Date.parse('2026-05-20T12:00:00Z');

describe('testAlerts', () => {
  it('gives exactly the alerts of analyseTest, for clean and for troubled results', () => {
    const cases: TestResults[] = [
      resultsOf(
        evenDays(14, { visitors: 1000, conversions: 30 }, { visitors: 1000, conversions: 32 }),
        {
          variantProbabilityWin: 0.9,
          controlProbabilityWin: 0.1,
        },
      ),
      // A planted mismatch (600 against 400 a day at 50/50), a model gap, and a missing stretch.
      resultsOf(
        evenDays(5, { visitors: 600, conversions: 18 }, { visitors: 400, conversions: 20 }),
        {
          variantProbabilityWin: 0.3,
          controlProbabilityWin: 0.6,
        },
      ),
    ];
    for (const results of cases) {
      expect(testAlerts(testOf(), results, { now: NOW })).toEqual(
        analyseTest(testOf(), results, { now: NOW }).alerts,
      );
    }
    const [, mismatched] = cases;
    if (mismatched === undefined) throw new Error('expected two cases');
    expect(testAlerts(testOf(), mismatched, { now: NOW }).map((a) => a.code)).toContain(
      'sample-ratio-mismatch',
    );
  });
});

describe('the per-counts cache', () => {
  it('returns equal analyses for equal counts, and copies a caller cannot corrupt', () => {
    const control = side({ visitors: 50_000, conversions: 1500 });
    const variant = side({ visitors: 50_000, conversions: 1580 });
    const first = analyseBinary(control, variant, 'cvr');
    if (first === null) throw new Error('expected an analysis');
    first.pWin = -1;
    const second = analyseBinary(control, variant, 'cvr');
    expect(second?.pWin).toBeGreaterThan(0.9);
    expect(second).toEqual(
      analyseBinary(
        side({ visitors: 50_000, conversions: 1500 }),
        side({ visitors: 50_000, conversions: 1580 }),
        'cvr',
      ),
    );
  });
});
