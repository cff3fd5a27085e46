// CSV as RFC 4180 (CRLF rows, quoted fields, doubled quotes) with OWASP's guard against formula injection.
import { lastTwo } from './last-two';
/**
 * A number cell written as the text given: a figure whose digits a report keeps as they are (an API
 * percent as its fraction, values.ts fractionCell), where String() of a double could end otherwise.
 */
export class NumberText {
  constructor(readonly text: string) {}
}

export type CsvValue = string | number | boolean | null | NumberText;

/** UTF-8 byte-order mark: Excel on Windows needs it to read UTF-8. */
export const BOM = '\uFEFF';

/** A cell starting with one of these runs as a formula in Excel, LibreOffice or Sheets (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r\n]/;
/**
 * The same trigger after a separator some spreadsheet might split on (',', ';', tab, '|', a line
 * break), e.g. the tags cell `UX; =1+1` in a locale whose CSV separator is ';'. Quoting already keeps
 * such a cell whole in every reader that honours quotes; the leading quote is defence in depth.
 */
const FORMULA_AFTER_SEPARATOR = /[,;\t|\r\n]\s*[=+\-@]/;

/** Whether a text cell needs the neutralising leading single quote. */
export function needsNeutralising(text: string): boolean {
  return FORMULA_START.test(text) || FORMULA_AFTER_SEPARATOR.test(text);
}

/**
 * One field. Every text cell is quoted (OWASP: a separator inside it can never start a new cell)
 * and, when it could start a formula, prefixed with a single quote, which spreadsheets show as text.
 * Numbers are written as numbers at full precision with '.' (a negative lift stays a number, and a
 * number cannot be a formula); null and non-finite numbers are empty; booleans are true/false.
 */
export function csvCell(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof NumberText) return value.text;
  if (value === '') return '';
  const text = needsNeutralising(value) ? `'${value}` : value;
  return `"${text.replaceAll('"', '""')}"`;
}

/** One record, CRLF-terminated as RFC 4180 asks. */
export function csvRow(values: readonly CsvValue[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += ',';
    line += csvCell(values[i] ?? null);
  }
  return `${line}\r\n`;
}

/**
 * A writer of rows given as text (ReportDefinition.textRows): a column marked `number` holds a
 * number's or boolean's own text and is written as it is, which is what csvCell writes for it; any
 * other is text, formatted once per run of equal values.
 */
export function csvTextRows(
  number: readonly boolean[],
): (values: readonly (string | null)[]) => string {
  const text = number.map(() => lastTwo(csvCell));
  return (values) => {
    let line = '';
    for (let i = 0; i < values.length; i++) {
      if (i > 0) line += ',';
      const value = values[i] ?? null;
      if (value === null) continue;
      line += number[i] ? value : (text[i]?.(value) ?? csvCell(value));
    }
    return `${line}\r\n`;
  };
}
