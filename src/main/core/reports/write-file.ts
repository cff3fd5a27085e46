// Writes a report's rows to a CSV file: beside its final name, renamed at the end, so a failed
// export never leaves half a file where the user expects a whole one.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { csvRow, type CsvValue } from './csv';

/** Writes every row (the first is the header) and returns how many data rows were written. */
export async function writeCsvFile(
  rows: AsyncIterable<CsvValue[]>,
  outFile: string,
): Promise<number> {
  const partial = `${outFile}.partial`;
  const out = createWriteStream(partial);
  // A write error is re-thrown by the awaits below; this listener keeps it from being unhandled meanwhile.
  let streamError: unknown = null;
  out.on('error', (error) => (streamError ??= error));
  const write = async (text: string) => {
    if (streamError) throw streamError;
    if (!out.write(text)) await Promise.race([once(out, 'drain'), once(out, 'error')]);
  };
  let count = -1;
  try {
    await once(out, 'open');
    for await (const row of rows) {
      await write(csvRow(row));
      count += 1;
    }
    out.end();
    await once(out, 'finish');
    if (streamError) throw streamError;
    await rename(partial, outFile);
  } catch (error) {
    out.destroy();
    await rm(partial, { force: true });
    throw error;
  }
  return Math.max(count, 0);
}
