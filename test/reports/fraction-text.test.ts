// An API percent as a fraction, from its number and from its cached text: the two agree, exponents included.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fraction, fractionText } from '#core/reports/values';

describe('fraction and fractionText', () => {
  it('move the decimal point, exponents included', () => {
    const cases: [string, string][] = [
      ['1.32', '0.0132'],
      ['-5.2', '-0.052'],
      ['0', '0'],
      ['-0', '0'],
      ['12.340', '0.1234'],
      ['100', '1'],
      ['0.00005', '5e-7'],
      // Before, "1e-7" + "e-2" was no number: the cell was empty and fraction() gave NaN.
      ['1e-7', '1e-9'],
      ['2.5E+21', '25000000000000000000'],
      ['1E5', '1000'],
      ['Infinity', ''],
      ['abc', ''],
      ['1e', ''],
    ];
    for (const [percent, expected] of cases) {
      expect(fractionText(percent)).toBe(expected);
      const number = Number(percent);
      if (Number.isFinite(number)) expect(String(fraction(number))).toBe(expected);
    }
    expect(fraction(null)).toBeNull();
    expect(fraction(Number.NaN)).toBeNull();
  });

  it('give one figure for any double, whether read from the number or from its text', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (percent) => {
        const value = fraction(percent);
        expect(value).not.toBeNaN();
        expect(fractionText(String(percent))).toBe(String(value));
        expect(fractionText(JSON.stringify(percent))).toBe(String(value));
      }),
      { numRuns: 20_000, seed: 22 },
    );
  });
});
