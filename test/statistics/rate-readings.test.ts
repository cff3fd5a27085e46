// Which reading of each rate fits a store's own counts: learnt per store, on either server's readings.
import { describe, expect, it } from 'vitest';
import { describeReadings, fitsOf, learnReadings, sideFits } from '#shared/domain/decisions/index';
import { side } from './support';

const simulatorLike = (visitors: number, conversions: number) =>
  side({ visitors, conversions, visits: Math.round(visitors * 1.4), clicks: conversions * 5 });

/** Another server: cnv is a count of conversions, ctr is clicks per visitor, rates as fractions. */
function otherServer(visitors: number, conversions: number) {
  const s = simulatorLike(visitors, conversions);
  return {
    ...s,
    cnv: s.conversions,
    ctr: s.clicks / s.visitors,
    cvr: s.conversions / s.visitors,
    acr: s.carts / s.visitors,
  };
}

describe('rate readings', () => {
  it("the simulator's readings: cnv per visit and ctr per visit, in percent", () => {
    const sides = [simulatorLike(1000, 30), simulatorLike(2400, 50), simulatorLike(800, 12)].map(
      sideFits,
    );
    const learnt = learnReadings(sides);
    expect(learnt.find((r) => r.rate === 'cnv')).toMatchObject({
      reading: 'conversions-per-visit',
      scale: 'percent',
      fits: 3,
      of: 3,
    });
    expect(learnt.find((r) => r.rate === 'ctr')).toMatchObject({
      reading: 'clicks-per-visit',
      scale: 'percent',
    });
    expect(learnt.find((r) => r.rate === 'cvr')).toMatchObject({
      reading: 'conversions-per-visitor',
      scale: 'percent',
    });
  });

  it("another server's readings: cnv a count, ctr per visitor, as fractions", () => {
    const sides = [otherServer(1000, 30), otherServer(2400, 50), otherServer(800, 12)].map(
      sideFits,
    );
    const learnt = learnReadings(sides);
    expect(learnt.find((r) => r.rate === 'cnv')).toMatchObject({
      reading: 'conversion-count',
      scale: 'count',
      label: 'a count of conversions',
    });
    expect(learnt.find((r) => r.rate === 'ctr')).toMatchObject({
      reading: 'clicks-per-visitor',
      scale: 'fraction',
      label: 'clicks per visitor',
    });
    expect(describeReadings(learnt)).toMatch(
      /cnv: a count of conversions; ctr: clicks per visitor \(fraction\)/,
    );
  });

  it('a rate that fits no reading is said so, and counted against the reading that fits most sides', () => {
    const good = otherServer(1000, 30);
    const bad = { ...otherServer(1000, 30), cnv: 7.5 };
    expect(fitsOf(bad, 'cnv')).toEqual([]);
    const learnt = learnReadings([good, good, bad].map(sideFits));
    expect(learnt.find((r) => r.rate === 'cnv')).toMatchObject({
      reading: 'conversion-count',
      fits: 2,
      of: 3,
    });
    expect(learnReadings([sideFits(bad)]).find((r) => r.rate === 'cnv')).toMatchObject({
      reading: null,
      fits: 0,
      of: 1,
    });
  });

  it('sides with no events say nothing about a reading', () => {
    const empty = side({ visitors: 0, conversions: 0, clicks: 0, carts: 0, visits: 0 });
    expect(learnReadings([sideFits(empty)]).every((r) => r.of === 0)).toBe(true);
  });
});
