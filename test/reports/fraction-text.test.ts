// An API percent as a fraction, from its number (fraction) and from its cached text (fractionText): the
// text keeps the API's digits with the point moved, and reads back as the very double fraction() gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fraction, fractionText } from '#core/reports/values';

/** A number text's significant digits: no sign, point, exponent, leading or trailing zeros. */
function significantDigits(text: string): string {
  return text
    .replace(/[eE].*$/, '')
    .replace(/[-.]/g, '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
}

describe('fraction and fractionText', () => {
  it('move the decimal point, exponents included', () => {
    const cases: [string, string][] = [
      ['1.32', '0.0132'],
      ['-5.2', '-0.052'],
      ['0', '0'],
      ['-0', '0'],
      ['12.340', '0.1234'],
      ['100', '1'],
      ['105', '1.05'],
      ['1000', '10'],
      ['0.00005', '5e-7'],
      // Before, "1e-7" + "e-2" was no number: the cell was empty and fraction() gave NaN.
      ['1e-7', '1e-9'],
      ['2.5E+21', '25000000000000000000'],
      ['1e24', '1e+22'],
      ['1.5e23', '1.5e+21'],
      ['1E5', '1000'],
      ['Infinity', ''],
      ['abc', ''],
      ['1e', ''],
      ['-', ''],
      ['-0.0', '0'],
      ['0.00000000000000000001', '1e-22'],
      ['01', '0.01'],
      ['.5', '0.005'],
      ['5.', '0.05'],
      // 16 and 17 digits keep the API's: String() of the double would end …409.9, …663.
      ['9007199254740991', '90071992547409.91'],
      ['16.666666666666664', '0.16666666666666664'],
      ['2.4539877300613498', '0.024539877300613498'],
      ['12345678.901234567', '123456.78901234567'],
      // The shapes most API percents have (a shorter path), and their near misses.
      ['2.013422818791946', '0.02013422818791946'],
      ['34.463276836158194', '0.34463276836158194'],
      ['99.99', '0.9999'],
      ['0.5', '0.005'],
      ['0.05', '0.0005'],
      ['1.10', '0.011'],
      ['05.5', '0.055'],
      ['-2.5', '-0.025'],
      ['1.5e-3', '0.000015'],
      // Past a double's range, the double that decimal reads back as.
      ['5e-324', '0'],
      ['1.7976931348623157e+308', '1.7976931348623157e+306'],
    ];
    for (const [percent, expected] of cases) {
      expect(fractionText(percent), percent).toBe(expected);
      const number = Number(percent);
      if (Number.isFinite(number)) expect(Number(expected), percent).toBe(fraction(number));
    }
    expect(fraction(null)).toBeNull();
    expect(fraction(Number.NaN)).toBeNull();
  });

  it('read back as the double fraction() gives, with the API’s digits, for any double', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (percent) => {
        const value = fraction(percent);
        expect(value).not.toBeNaN();
        for (const text of [String(percent), JSON.stringify(percent)]) {
          const moved = fractionText(text);
          // === : a CSV cell has no −0 (String(−0) is "0" too).
          expect(Number(moved) === value).toBe(true);
          // Within a double's normal range the digits are the text's own.
          if (Math.abs(percent) > 1e-300 && Math.abs(percent) < 1e300)
            expect(significantDigits(moved)).toBe(significantDigits(text));
        }
      }),
      { numRuns: 20_000, seed: 22 },
    );
  });

  it('are the same text wherever the percent has at most 15 significant digits', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
        fc.integer({ min: 1, max: 15 }),
        (raw, digits) => {
          const percent = Number(raw.toPrecision(digits));
          // Subnormal doubles hold fewer than 15 digits: no percent is one.
          if (percent !== 0 && Math.abs(percent) < 1e-290) return;
          expect(fractionText(String(percent))).toBe(String(fraction(percent)));
        },
      ),
      { numRuns: 20_000, seed: 22 },
    );
  });

  it('lay out every percent from 0.01 to 100 as String() lays out its fraction', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, min: 0.01, max: 100, maxExcluded: true }),
        fc.integer({ min: 1, max: 15 }),
        (raw, digits) => {
          const percent = Number(raw.toPrecision(digits));
          expect(fractionText(String(percent))).toBe(String(fraction(percent)));
        },
      ),
      { numRuns: 20_000, seed: 23 },
    );
  });

  it('give one figure for the rates a day of counts makes (the daily report’s percents)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (visitors, count) => {
          const percent = (Math.min(count, visitors) / visitors) * 100;
          const text = fractionText(JSON.stringify(percent));
          expect(Number(text)).toBe(fraction(percent));
          expect(significantDigits(text)).toBe(significantDigits(JSON.stringify(percent)));
        },
      ),
      { numRuns: 50_000, seed: 22 },
    );
  });
});
