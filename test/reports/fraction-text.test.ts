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
      // Around 2⁵³ digits, where one division stops being exact (read by Number() from there on).
      ['9007199254740991', '90071992547409.9'],
      ['9007199254740992', '90071992547409.92'],
      ['0.9007199254740991', '0.009007199254740991'],
      ['12345678.901234567', '123456.78901234567'],
      ['-0.0', '0'],
      ['0.00000000000000000001', '1e-22'],
      ['0.000000000000000000001', '1e-23'],
      ['01', '0.01'],
      ['.5', '0.005'],
      ['5.', '0.05'],
      ['-', ''],
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

  it('give one figure for the rates a day of counts makes (the daily report’s percents)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (visitors, count) => {
          const percent = (Math.min(count, visitors) / visitors) * 100;
          expect(fractionText(JSON.stringify(percent))).toBe(String(fraction(percent)));
        },
      ),
      { numRuns: 50_000, seed: 22 },
    );
  });
});
