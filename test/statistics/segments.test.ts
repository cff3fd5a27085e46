// Per-segment analysis: each segment present on both sides is analysed, a missing one is null.
import { expect, it } from 'vitest';
import { analyseSegments, SegmentAnalysis } from '#shared/domain/statistics/index';
import { resultsOf, side } from './support';

it('analyses the segments both sides have and leaves the others null', () => {
  const base = resultsOf([
    { control: { visitors: 1000, conversions: 30 }, variant: { visitors: 1000, conversions: 36 } },
  ]);
  const results = {
    ...base,
    control: {
      ...base.control,
      mobile: side({ visitors: 600, conversions: 15 }),
      desktop: side({ visitors: 400, conversions: 15 }),
    },
    variant: { ...base.variant, mobile: side({ visitors: 600, conversions: 20 }), desktop: null },
  };
  const segments = analyseSegments(results);
  expect(SegmentAnalysis.parse(segments)).toEqual(segments);
  expect(segments.mobile?.cvr?.variantCount).toBe(20);
  expect(segments.mobile?.cvr?.pWin).toBeGreaterThan(0.5);
  expect(segments.desktop).toBeNull();
  expect(segments.new).toBeNull();
});
