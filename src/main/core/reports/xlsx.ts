// A streaming .xlsx writer for reports: each sheet's XML is deflated (on libuv's threads) and written
// as its rows come, under the output's backpressure, so memory holds two chunks whatever the sheet's
// length. Cells are typed (numbers, booleans, dates as serial days with a date format) and text is
// inline (never a shared-strings table, never a formula); a few fixed styles serve every column.
//
// exceljs's streaming writer did the same job at about 80 µs a row (a 730,000-row sheet took over a
// minute and 700 MiB, as it produced rows faster than its zip stream took them); the format needs
// little: an OPC zip of a handful of XML parts, written here with node:zlib (deflate, crc32).
import type { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw } from 'node:zlib';
import { NumberText, type CsvValue } from './csv';
import type { CellKind } from './types';
import { lastTwo } from './last-two';
import { sinkFor, Utf8Chunks } from './write-file';

/** Uncompressed XML gathered before a chunk is deflated and written. */
const CHUNK_BYTES = 1024 * 1024;
/** zlib's fastest level: a report's XML is repetitive, so it still shrinks about tenfold. */
const DEFLATE_LEVEL = 1;
const ZIP32_MAX = 0xffff_ffff;
const deflateRawAsync = promisify(deflateRaw);

// ---------- the zip container ----------

type ZipEntry = { name: Buffer; crc: number; compressed: number; size: number; offset: number };

interface ZipEntryWriter {
  /** Adds content; true when `flush` is due. */
  add(text: string): boolean;
  flush(): Promise<void>;
  end(): Promise<void>;
}

/** DOS date and time of a zip entry (local time is what zip readers show; UTC here, to the second). */
function dosDateTime(ms: number): { date: number; time: number } {
  const d = new Date(ms);
  const year = Math.max(1980, Math.min(2107, d.getUTCFullYear()));
  return {
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1),
  };
}

/**
 * A zip archive written forward only: each entry's local header, its deflated data, then a data
 * descriptor with its CRC and sizes (not known before it ends), and the central directory last.
 */
class ZipWriter {
  private readonly sink: { write(chunk: string | Uint8Array): Promise<void> };
  private readonly entries: ZipEntry[] = [];
  private readonly stamp: { date: number; time: number };
  private offset = 0;

  constructor(
    private readonly out: Writable,
    now: number,
  ) {
    this.sink = sinkFor(out);
    this.stamp = dosDateTime(now);
  }

  private async put(bytes: Uint8Array): Promise<void> {
    this.offset += bytes.length;
    await this.sink.write(bytes);
  }

  /**
   * Starts an entry: `add` takes its content as text, in as many pieces as wanted, and says when
   * `flush` is due (each full chunk is deflated and written); `end` closes it.
   */
  async entry(name: string): Promise<ZipEntryWriter> {
    const entry: ZipEntry = {
      name: Buffer.from(name, 'utf8'),
      crc: 0,
      compressed: 0,
      size: 0,
      offset: this.offset,
    };
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    header.writeUInt16LE(0x0808, 6); // sizes in a data descriptor; UTF-8 name
    header.writeUInt16LE(8, 8); // deflate
    header.writeUInt16LE(this.stamp.time, 10);
    header.writeUInt16LE(this.stamp.date, 12);
    // CRC and sizes (14..25) stay zero: they follow the data.
    header.writeUInt16LE(entry.name.length, 26);
    await this.put(header);
    await this.put(entry.name);
    const chunks = new Utf8Chunks(CHUNK_BYTES);
    // Each chunk is deflated on one of libuv's threads while this thread makes the next chunk's XML
    // (deflating was a third of a long sheet's time), then written; at most two chunks are held.
    let before: Promise<void> = Promise.resolve();
    const deflate = async (last: boolean): Promise<void> => {
      const parts = chunks.take();
      const bytes = parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts);
      entry.crc = crc32(bytes, entry.crc);
      entry.size += bytes.length;
      // Each piece ends on a sync flush, so the pieces together are one deflate stream.
      const compressing = deflateRawAsync(bytes, {
        level: DEFLATE_LEVEL,
        finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
        // XML shrinks about tenfold: one output buffer, one trip back to this thread.
        chunkSize: Math.max(constants.Z_DEFAULT_CHUNK, bytes.length >> 2),
      });
      // Handled now, thrown when its turn comes: it may fail while the chunk before is written.
      compressing.catch(() => undefined);
      const previous = before;
      before = (async () => {
        await previous;
        const compressed = await compressing;
        entry.compressed += compressed.length;
        await this.put(compressed);
      })();
      // A failure is thrown by the next flush or the end, which wait for it; until then it is
      // not unhandled.
      before.catch(() => undefined);
      await (last ? before : previous);
    };
    return {
      add: (text) => chunks.add(text),
      flush: () => deflate(false),
      end: async () => {
        await deflate(true);
        if (entry.size > ZIP32_MAX || entry.compressed > ZIP32_MAX || this.offset > ZIP32_MAX) {
          throw new Error('The workbook is larger than 4 GiB, more than an .xlsx file can hold.');
        }
        const descriptor = Buffer.alloc(16);
        descriptor.writeUInt32LE(0x08074b50, 0);
        descriptor.writeUInt32LE(entry.crc >>> 0, 4);
        descriptor.writeUInt32LE(entry.compressed, 8);
        descriptor.writeUInt32LE(entry.size, 12);
        await this.put(descriptor);
        this.entries.push(entry);
      },
    };
  }

  async file(name: string, text: string): Promise<void> {
    const entry = await this.entry(name);
    entry.add(text);
    await entry.end();
  }

  /** Writes the central directory and ends the output. */
  async finish(): Promise<void> {
    const start = this.offset;
    for (const entry of this.entries) {
      const record = Buffer.alloc(46);
      record.writeUInt32LE(0x02014b50, 0);
      record.writeUInt16LE(20, 4); // made by: 2.0
      record.writeUInt16LE(20, 6);
      record.writeUInt16LE(0x0808, 8);
      record.writeUInt16LE(8, 10);
      record.writeUInt16LE(this.stamp.time, 12);
      record.writeUInt16LE(this.stamp.date, 14);
      record.writeUInt32LE(entry.crc >>> 0, 16);
      record.writeUInt32LE(entry.compressed, 20);
      record.writeUInt32LE(entry.size, 24);
      record.writeUInt16LE(entry.name.length, 28);
      // Extra field, comment, disk number, attributes (30..41): none.
      record.writeUInt32LE(entry.offset, 42);
      await this.put(record);
      await this.put(entry.name);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(this.offset - start, 12);
    end.writeUInt32LE(start, 16);
    await this.put(end);
    this.out.end();
  }
}

// ---------- cells ----------

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Characters XML 1.0 cannot hold (they are dropped) and those it must escape. */
const NOT_PLAIN_CHARS = '[&<>"\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\ufffe\\uffff]';
const NOT_PLAIN = new RegExp(NOT_PLAIN_CHARS);
const NOT_PLAIN_ALL = new RegExp(NOT_PLAIN_CHARS, 'g');
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text as XML character data (or an attribute value): escaped, characters XML cannot hold dropped. */
export function xmlText(text: string): string {
  return NOT_PLAIN.test(text) ? text.replace(NOT_PLAIN_ALL, (c) => ENTITIES[c] ?? '') : text;
}

/** Style indexes of styles.xml's cellXfs. */
const STYLE = { plain: 0, header: 1, fraction: 2, money: 3, integer: 4, date: 5, datetime: 6 };
const KIND_STYLE: Record<CellKind, number> = {
  text: STYLE.plain,
  number: STYLE.plain,
  boolean: STYLE.plain,
  fraction: STYLE.fraction,
  money: STYLE.money,
  integer: STYLE.integer,
  date: STYLE.date,
  datetime: STYLE.datetime,
};

/** The number formats of styles 2 to 6 (STYLE), custom ids from 164 so every reader gets the code. */
const FORMAT_CODES = ['0.00%', '#,##0.00', '0', 'yyyy-mm-dd', 'yyyy-mm-dd hh:mm:ss'];
const FONT = '<sz val="11"/><name val="Calibri"/><family val="2"/>';
const STYLES_XML = [
  `${XML_HEAD}<styleSheet xmlns="${MAIN_NS}">`,
  `<numFmts count="${FORMAT_CODES.length}">`,
  ...FORMAT_CODES.map((code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${code}"/>`),
  `</numFmts><fonts count="2"><font>${FONT}</font><font><b/>${FONT}</font></fonts>`,
  '<fills count="2"><fill><patternFill patternType="none"/></fill>',
  '<fill><patternFill patternType="gray125"/></fill></fills>',
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>',
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>',
  `<cellXfs count="${2 + FORMAT_CODES.length}">`,
  '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>',
  '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>',
  ...FORMAT_CODES.map(
    (_, i) =>
      `<xf numFmtId="${164 + i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`,
  ),
  '</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>',
  '</styleSheet>',
].join('');

/** Excel's serial day (1900 system) of a time, as exceljs and Excel count it. */
function serialDay(ms: number): number {
  return 25569 + ms / 86_400_000;
}

/** A date or datetime column's text as a serial day, or null when the clock cannot read it. */
function serialOf(value: string, kind: CellKind): number | null {
  const ms = Date.parse(kind === 'date' ? `${value}T00:00:00Z` : value);
  return Number.isFinite(ms) ? serialDay(ms) : null;
}

/** The letters of a 1-based column number: 1 → A, 27 → AA. */
export function columnLetter(index: number): string {
  let n = index;
  let letters = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    letters = String.fromCharCode(65 + rem) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

export type SheetColumn = { name: string; kind: CellKind };

/** A cell after its reference: `t`, `s` and the value, up to `</c>`. */
function textCell(text: string, style: number): string {
  const space = /^\s|\s$/.test(text) ? ' xml:space="preserve"' : '';
  return `${style ? ` s="${style}"` : ''} t="inlineStr"><is><t${space}>${xmlText(text)}</t></is></c>`;
}

/**
 * One column's cell writer: `value` gives the cell after its reference (or '' for none), for a row
 * value (`rows`) or a text row value (`textRows`, a number as its text). Text and dates are
 * formatted once per run of equal values, as the CSV writer does.
 */
function columnCells(column: SheetColumn, number: boolean) {
  const style = KIND_STYLE[column.kind];
  const styled = style ? ` s="${style}"` : '';
  const stringCell = (value: string): string => {
    if (column.kind === 'date' || column.kind === 'datetime') {
      const serial = serialOf(value, column.kind);
      if (serial !== null) return `${styled}><v>${serial}</v></c>`;
    }
    return textCell(value, style);
  };
  const valueOpen = `${styled}><v>`;
  const numberCell = (value: number): string =>
    Number.isFinite(value) ? `${valueOpen}${value}</v></c>` : '';
  const remembered = lastTwo(stringCell);
  return {
    value(value: CsvValue): string {
      if (value === null) return '';
      if (typeof value === 'number') return numberCell(value);
      if (typeof value === 'boolean') return `${styled} t="b"><v>${value ? 1 : 0}</v></c>`;
      if (value instanceof NumberText)
        return value.text === '' ? '' : `${valueOpen}${value.text}</v></c>`;
      return remembered(value);
    },
    text(value: string | null): string {
      if (value === null) return '';
      if (!number) return remembered(value);
      if (column.kind === 'boolean')
        return `${styled} t="b"><v>${value === 'true' ? 1 : 0}</v></c>`;
      return `${valueOpen}${value}</v></c>`;
    },
  };
}

// ---------- sheets and the workbook ----------

type SheetInfo = { name: string; path: string; columns: number };

export interface SheetWriter {
  /** Adds a data row of `rows` values; true when `flush` is due. */
  row(values: readonly CsvValue[]): boolean;
  /** Adds a data row of text values (numbers as their text in the columns marked `number`). */
  textRow(values: readonly (string | null)[]): boolean;
  /** Deflates and writes the rows added so far, under the output's backpressure. */
  flush(): Promise<void>;
  end(): Promise<void>;
}

/**
 * A workbook written sheet by sheet: `sheet` starts one (ending the one before), `finish` writes the
 * workbook's parts and ends the output.
 */
export class XlsxWriter {
  private readonly zip: ZipWriter;
  private readonly sheets: SheetInfo[] = [];

  constructor(
    out: Writable,
    private readonly now: number,
  ) {
    this.zip = new ZipWriter(out, now);
  }

  /** Starts a sheet with a bold, frozen header row and a filter on it; `number` marks textRow's number columns. */
  async sheet(
    name: string,
    columns: readonly SheetColumn[],
    number: readonly boolean[],
  ): Promise<SheetWriter> {
    const index = this.sheets.length + 1;
    const path = `xl/worksheets/sheet${index}.xml`;
    this.sheets.push({ name, path, columns: columns.length });
    const entry = await this.zip.entry(path);
    const letters = columns.map((_, i) => columnLetter(i + 1));
    const last = letters.at(-1) ?? 'A';
    const cells = columns.map((column, i) => columnCells(column, number[i] ?? false));
    const cols = columns
      .map((column, i) => {
        const width = Math.max(10, Math.min(40, column.name.length + 2));
        const style = KIND_STYLE[column.kind];
        return `<col min="${i + 1}" max="${i + 1}" width="${width}" customWidth="1"${style ? ` style="${style}"` : ''}/>`;
      })
      .join('');
    const header = columns
      .map((column, i) => `<c r="${letters[i] ?? ''}1"${textCell(column.name, STYLE.header)}`)
      .join('');
    entry.add(
      `${XML_HEAD}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheetViews><sheetView workbookViewId="0"${index === 1 ? ' tabSelected="1"' : ''}><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><cols>${cols}</cols><sheetData><row r="1">${header}</row>`,
    );
    let rowNumber = 1;
    // Each cell's start up to its row number: `<c r="A`.
    const opens = letters.map((letter) => `<c r="${letter}`);
    const add = (cell: (i: number) => string): boolean => {
      rowNumber += 1;
      const row = String(rowNumber);
      let xml = `<row r="${row}">`;
      for (let i = 0; i < opens.length; i++) {
        const rest = cell(i);
        if (rest !== '') xml += `${opens[i] ?? ''}${row}"${rest}`;
      }
      return entry.add(`${xml}</row>`);
    };
    return {
      row: (values) => add((i) => cells[i]?.value(values[i] ?? null) ?? ''),
      textRow: (values) => add((i) => cells[i]?.text(values[i] ?? null) ?? ''),
      flush: () => entry.flush(),
      end: async () => {
        entry.add(`</sheetData><autoFilter ref="A1:${last}1"/></worksheet>`);
        await entry.end();
      },
    };
  }

  /** Writes the workbook, its relationships, styles and properties, then ends the output. */
  async finish(): Promise<void> {
    const sheets = this.sheets;
    const quoted = (name: string) => `'${name.replaceAll("'", "''")}'`;
    await this.zip.file(
      'xl/workbook.xml',
      `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><bookViews><workbookView/></bookViews><sheets>${sheets
        .map((s, i) => `<sheet name="${xmlText(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
        .join('')}</sheets><definedNames>${sheets
        .map(
          (s, i) =>
            `<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">${xmlText(quoted(s.name))}!$A$1:$${columnLetter(s.columns)}$1</definedName>`,
        )
        .join('')}</definedNames></workbook>`,
    );
    const relationship = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    await this.zip.file(
      'xl/_rels/workbook.xml.rels',
      `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
        .map(
          (s, i) =>
            `<Relationship Id="rId${i + 1}" Type="${relationship}/worksheet" Target="${s.path.slice(3)}"/>`,
        )
        .join(
          '',
        )}<Relationship Id="rId${sheets.length + 1}" Type="${relationship}/styles" Target="styles.xml"/></Relationships>`,
    );
    await this.zip.file('xl/styles.xml', STYLES_XML);
    await this.zip.file(
      'docProps/core.xml',
      `${XML_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:creator>Splitbook</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">${new Date(this.now).toISOString().slice(0, 19)}Z</dcterms:created></cp:coreProperties>`,
    );
    await this.zip.file(
      '_rels/.rels',
      `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${relationship}/officeDocument" Target="xl/workbook.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    );
    const type = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
    await this.zip.file(
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="${type}.sheet.main+xml"/>${sheets
        .map((s) => `<Override PartName="/${s.path}" ContentType="${type}.worksheet+xml"/>`)
        .join(
          '',
        )}<Override PartName="/xl/styles.xml" ContentType="${type}.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`,
    );
    await this.zip.finish();
  }
}
