// How values are written to SQLite: records as JSON (large ones compressed), booleans as flags.
import { promisify } from 'node:util';
import {
  brotliCompressSync,
  brotliDecompress,
  brotliDecompressSync,
  constants as zlibConstants,
} from 'node:zlib';
import { isLaidOut, laidOutStart, layOutRecord, recordText } from './record-text';

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
 * Brotli's quality for packJson (0–11). The sync packs one record a results request and is CPU-bound
 * at twenty stores. Quality 1 (until cache v21) took 0.16 ms a record of the simulator's for 21.9% of
 * the text; it was raised to 4 when the cache was brought back under 10 kB a test (issue 45): on the
 * scale bench's 1,395 records (14.4 kB of text each) quality 4 packs 16% smaller than 1 (5.9 kB
 * against 7.1 kB, 0.84 kB a test of the cache) for about 0.3 ms more a record (0.47 ms against
 * 0.17); quality 5 was 4% smaller again for three times the time. Reading back costs about 0.1 ms
 * whatever the quality (a file written at another quality reads the same), so records packed at 1
 * stay as they are until their results are written again.
 */
export const PACK_QUALITY = 4;

/**
 * Brotli's quality for the small values packed as they are made, a call or a test's days (about
 * 1 kB each): the refresh packs a call for each test it makes one for, where quality 4 took five
 * times as long (0.22 ms against 0.045 a call) for 6% less.
 */
const SMALL_PACK_QUALITY = 1;

/**
 * A large record (a test's results, mostly its daily series) as Brotli-compressed JSON, about 4.5×
 * smaller than the text; since cache v22 its daily series laid out as columns first (record-text.ts),
 * about 2.5× smaller again on the scale bench's records. unpackJson gives the same text back.
 */
export function packJson(value: unknown): Buffer {
  return brotliCompressSync(layOutRecord(value, toJson(value)), {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: PACK_QUALITY },
  });
}

/**
 * Bytes Brotli-compressed at SMALL_PACK_QUALITY: a test's days in results_facts (float64 counts of
 * small integers, about 2.8× smaller; cache migration 20).
 */
export function packBytes(bytes: Uint8Array): Buffer {
  return brotliCompressSync(bytes, {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: SMALL_PACK_QUALITY },
  });
}

/**
 * A short text Brotli-compressed as packBytes compresses bytes: a call's JSON in tests_decision (cache
 * migration 21), read back by unpackText or, in SQL, unpack_json.
 */
export function packText(text: string): Buffer {
  return packBytes(Buffer.from(text, 'utf8'));
}

/** The text packText was given. */
export function unpackText(packed: Uint8Array): string {
  return brotliDecompressSync(packed).toString('utf8');
}

/** The bytes packBytes was given, or null when `packed` is not Brotli. */
export function unpackBytes(packed: Uint8Array): Buffer | null {
  try {
    return brotliDecompressSync(packed);
  } catch {
    return null;
  }
}

/** The JSON text of a record written by packJson (of any version: plain or laid out). */
export function unpackJson(packed: Uint8Array): string {
  return recordText(brotliDecompressSync(packed).toString('utf8'));
}

const decompress = promisify(brotliDecompress);

/**
 * The output buffer of an asynchronous decompression: each one filled is a round trip through the
 * calling thread's event loop, which is busy (that is why the work went to another thread), so a
 * record should fit in one. Results records pack 4.4 to 10.3 to 1 (measured on a year of days of the
 * reports benchmark): 16 times the packed size holds any of them, up to 4 MB.
 */
function chunkSizeFor(packed: Uint8Array): number {
  return Math.min(4 << 20, Math.max(zlibConstants.Z_DEFAULT_CHUNK, packed.length * 16));
}

/**
 * unpackJson on one of libuv's threads: a reader that has other work for the thread it runs on (the
 * `daily` export writing the record before) decompresses the next records meanwhile.
 */
export async function unpackJsonAsync(packed: Uint8Array): Promise<string> {
  return recordText(
    (await decompress(packed, { chunkSize: chunkSizeFor(packed) })).toString('utf8'),
  );
}

/**
 * Packed bytes decompressed first when only a record's start is wanted: 2 kB of a results record
 * hold its totals (about 5.4 kB of its 33 kB of text) for 199 of the simulator's 212 records.
 */
const PREFIX_BYTES = 2048;

/**
 * The text of a record written by packJson from its start up to and including the first `marker`,
 * decompressing only as much as that takes (Brotli decodes a prefix of its input into a prefix of
 * its output); null when the record holds no `marker`.
 */
export function unpackJsonUntil(packed: Uint8Array, marker: string): string | null {
  for (let bytes = PREFIX_BYTES; ; bytes *= 2) {
    const whole = bytes >= packed.length;
    const unpacked = whole
      ? brotliDecompressSync(packed).toString('utf8')
      : brotliDecompressSync(packed.subarray(0, bytes), {
          finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH,
        }).toString('utf8');
    if (!isLaidOut(unpacked)) {
      // Only text before the marker is returned: a character cut at the prefix's end lies beyond it.
      const at = unpacked.indexOf(marker);
      if (at >= 0) return unpacked.slice(0, at + marker.length);
      if (whole) return null;
      continue;
    }
    // A laid-out record's head is read alone, once the prefix holds it (its rates given back); a
    // marker past it is looked for in the record's text made whole.
    const start = laidOutStart(unpacked);
    if (start === undefined && !whole) continue;
    const at = typeof start === 'string' ? start.indexOf(marker) : -1;
    if (typeof start === 'string' && at >= 0) return start.slice(0, at + marker.length);
    const text = recordText(whole ? unpacked : unpackJson(packed));
    const found = text.indexOf(marker);
    return found < 0 ? null : text.slice(0, found + marker.length);
  }
}
