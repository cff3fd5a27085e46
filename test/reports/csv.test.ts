// CSV cells: RFC 4180 quoting and the spreadsheet formula-injection guard.
import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from '../../src/main/core/reports/csv';

describe('csvCell', () => {
  it.each([
    ['plain text', 'plain text'],
    ['a, b', '"a, b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['', ''],
  ])('quotes %j only when it must: %s', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1+1', "'+1+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
  ])('defuses the formula %j by a leading quote', (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it('writes numbers as numbers, so a negative lift stays a number; empty for null and non-finite', () => {
    expect(csvCell(-24.97)).toBe('-24.97');
    expect(csvCell(0)).toBe('0');
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(true)).toBe('true');
  });
});

describe('csvRow', () => {
  it('joins cells with commas and ends the record with CRLF', () => {
    expect(csvRow(['a', 1, null, 'b,c'])).toBe('a,1,,"b,c"\r\n');
  });
});
