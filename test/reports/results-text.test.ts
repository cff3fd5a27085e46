// Reading a cached results record without a full parse (reports/results-text.ts): where the record is
// written as the schema writes it, the totals and daily figures read by position equal JSON.parse's;
// any other layout is not read so (null), never misread.
import { describe, expect, it } from 'vitest';
import {
  CONTROL_AT,
  DAILY_FIGURES,
  HEAD_FIGURES,
  VARIANT_AT,
  dailyMatches,
  matchedHead,
  packedResultsHead,
  resultsHead,
  type ResultsHead,
} from '#core/reports/results-text';
import { TestResults } from '#shared/api/index';
import { createSimulator } from '#simulator/index';
import { isLaunched } from '#shared/domain/lifecycle';
import { packJson } from '#core/db/values';
import { stats } from '../db/fixtures';

/** Records as the cache writes them: the validated record, JSON.stringify'd (db/values.ts packJson). */
function cachedTexts(): string[] {
  const sim = createSimulator({ seed: 11, stores: [{ name: 'S', tests: 80 }] });
  return sim
    .snapshot('S')
    .tests.filter((test) => isLaunched(test.status))
    .flatMap((test) => {
      const results = sim.results('S', test.id);
      return results ? [JSON.stringify(TestResults.parse(results))] : [];
    });
}

/** The head as JSON.parse reads it. */
function parsedHead(text: string): ResultsHead {
  const record = JSON.parse(text) as TestResults;
  const side = (s: TestResults['control']) =>
    Object.fromEntries(HEAD_FIGURES.map((figure) => [figure, s[figure]]));
  return {
    lift: record.lift,
    variantProbabilityWin: record.variantProbabilityWin,
    control: side(record.control),
    variant: side(record.variant),
  } as ResultsHead;
}

const texts = cachedTexts();
const sample = JSON.parse(texts[0] ?? '{}') as TestResults;

describe('results head', () => {
  it('reads the totals of every record the cache writes by position, equal to JSON.parse', () => {
    expect(texts.length).toBeGreaterThan(20);
    for (const text of texts) {
      expect(matchedHead(text)).toEqual(parsedHead(text));
      expect(resultsHead(text)).toEqual(parsedHead(text));
    }
  });

  it('reads escaped text and segments by position too', () => {
    const odd = {
      ...sample,
      status: 'we"ird\\,"daily":',
      control: { ...sample.control, mobile: stats(10, 1) },
    };
    const text = JSON.stringify(odd);
    expect(matchedHead(text)).toEqual(parsedHead(text));
  });

  it('reads the same totals from a packed record, unpacking only the text before the daily series', () => {
    for (const text of texts) {
      const record = JSON.parse(text) as TestResults;
      expect(packedResultsHead(packJson(record))).toEqual(resultsHead(text));
    }
    // A metric called "daily" among liftByMetric's keys ends the prefix early: not read (null), so the
    // caller reads the whole record, which resultsHead still reads by position.
    const early = { ...sample, liftByMetric: { cvr: { value: 1 }, daily: { value: 2 } } };
    expect(packedResultsHead(packJson(early))).toBeNull();
    expect(resultsHead(JSON.stringify(early))).toEqual(parsedHead(JSON.stringify(early)));
  });

  it('never reads another layout by position, and parses it instead when it can be cut', () => {
    // A member the schema does not have, before `daily`: parsed.
    const extra = JSON.stringify({ extra: { daily: 1 }, ...sample });
    expect(matchedHead(extra)).toBeNull();
    expect(resultsHead(extra)).toMatchObject(parsedHead(extra));
    // A `daily` inside the control's totals comes first: no cut holds, the caller parses it whole.
    const nested = JSON.stringify({ ...sample, control: { ...sample.control, daily: { x: 1 } } });
    expect(matchedHead(nested)).toBeNull();
    expect(resultsHead(nested)).toBeNull();
    expect(dailyMatches(nested)).toBeNull();
  });
});

describe('daily figures', () => {
  it('are each day’s figures as written, in date order', () => {
    for (const text of texts) {
      const days = dailyMatches(text);
      const daily = (JSON.parse(text) as TestResults).daily;
      const dates = Object.keys(daily).sort();
      expect(days?.map((day) => day[1])).toEqual(dates);
      days?.forEach((day) => {
        const performance = daily[day[1] ?? '']?.performance;
        for (const figure of DAILY_FIGURES) {
          expect(day[CONTROL_AT[figure]]).toBe(String(performance?.control[figure]));
          expect(day[VARIANT_AT[figure]]).toBe(String(performance?.variant[figure]));
        }
      });
    }
  });

  it('sorts days sent out of order', () => {
    const entries = Object.entries(sample.daily).reverse();
    const text = JSON.stringify({ ...sample, daily: Object.fromEntries(entries) });
    expect(dailyMatches(text)?.map((day) => day[1])).toEqual(Object.keys(sample.daily).sort());
  });

  it('is not read by position where a day has a segment, a key that is no date or another member', () => {
    const [date = '', point] = Object.entries(sample.daily)[0] ?? [];
    if (!point) throw new Error('a day expected');
    const variants = [
      {
        [date]: {
          performance: { ...point.performance, control: stats(5, 1, { mobile: stats(2, 0) }) },
        },
      },
      { ...sample.daily, 'not-a-date': point },
      { ...sample.daily, [date]: { ...point, note: 'x' } },
    ];
    for (const daily of variants)
      expect(dailyMatches(JSON.stringify({ ...sample, daily }))).toBeNull();
  });
});
