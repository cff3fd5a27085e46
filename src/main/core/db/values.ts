// How values are written to SQLite: records as JSON (large ones compressed), booleans as flags.
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';

/** A record as JSON text for a raw_json column. */
export function toJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** The record as JSON, or null when it cannot be serialised (nested too deep for the stack). */
export function storableJson(value: unknown): string | null {
  try {
    return toJson(value);
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** SQLite has no booleans (and better-sqlite3 refuses to bind them). */
export function toFlag(value: boolean | null): 0 | 1 | null {
  return value === null ? null : value ? 1 : 0;
}

/**
 * A large record (a test's results, mostly its daily series) as Brotli-compressed JSON: about 5×
 * smaller than the text. The sync writes one a results request and is CPU-bound at twenty stores, so
 * the quality is 2: measured on the simulator's 31 kB records, 0.29 ms a record for 19.5% of the text,
 * where quality 4 took 0.60 ms for 18.4% and quality 1 0.16 ms for 22.1%. Reading back costs about
 * 0.1 ms whatever the quality (a file written at another quality reads the same).
 */
export function packJson(value: unknown): Buffer {
  return brotliCompressSync(toJson(value), {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 2 },
  });
}

/** The JSON text of a record written by packJson. */
export function unpackJson(packed: Uint8Array): string {
  return brotliDecompressSync(packed).toString('utf8');
}
