// CSV cells: RFC 4180 quoting and OWASP's formula-injection guard (every text cell quoted, a leading
// quote where a formula could start, also after a separator another locale's spreadsheet splits on).
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from '#core/reports/csv';

describe('csvCell', () => {
  it.each([
    ['plain text', '"plain text"'],
    ['a, b', '"a, b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['Ünïcødé ✓', '"Ünïcødé ✓"'],
    ['', ''],
  ])('quotes every text cell %j: %s', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1+1', `"'+1+1"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['\t=1', `"'\t=1"`],
    ['\r=1', `"'\r=1"`],
    ['UX; =1+1', `"'UX; =1+1"`],
    ['a,=1', `"'a,=1"`],
    ['a\t@x', `"'a\t@x"`],
    ['first line\n-1+1', `"'first line\n-1+1"`],
  ])('defuses the formula %j by a leading quote', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('leaves text where no formula can start alone', () => {
    expect(csvCell('Price - 5% off; free shipping')).toBe('"Price - 5% off; free shipping"');
    expect(csvCell('a=b')).toBe('"a=b"');
  });

  it('writes numbers as numbers, so a negative lift stays a number; empty for null and non-finite', () => {
    expect(csvCell(-24.97)).toBe('-24.97');
    expect(csvCell(-0.052)).toBe('-0.052');
    expect(csvCell(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(csvCell(0)).toBe('0');
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(false)).toBe('false');
  });
});

describe('csvRow', () => {
  it('joins cells with commas and ends the record with CRLF', () => {
    expect(csvRow(['a', 1, null, 'b,c'])).toBe('"a",1,,"b,c"\r\n');
  });
});
