// CSV as RFC 4180 (CRLF rows, quoted fields) with a guard against formula injection in spreadsheets.
export type CsvValue = string | number | boolean | null;

/** A text cell starting with one of these would run as a formula in Excel, LibreOffice or Sheets. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One field. Text that could start a formula gets a leading single quote; numbers are written as
 * numbers (a negative lift must stay a number, and a number cannot be a formula).
 */
export function csvCell(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 asks. */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
