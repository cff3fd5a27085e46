// How records are packed for the cache (db/values.ts): what one quality writes, any reads back.
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PACK_QUALITY, packJson, unpackJson } from '#core/db/values';
import { makeResults } from './fixtures';

describe('packJson', () => {
  const record = makeResults('00000000-0000-4000-8000-000000000001');
  const text = JSON.stringify(record);

  it('packs a record to Brotli at the chosen quality and reads it back to the same JSON', () => {
    const packed = packJson(record);
    expect(packed.length).toBeLessThan(Buffer.byteLength(text));
    expect(unpackJson(packed)).toBe(text);
    expect(PACK_QUALITY).toBe(1);
  });

  it('reads what earlier versions packed at other qualities (caches written before quality 1)', () => {
    for (const quality of [2, 4, 11]) {
      const packed = brotliCompressSync(text, {
        params: { [zlibConstants.BROTLI_PARAM_QUALITY]: quality },
      });
      expect(unpackJson(packed)).toBe(text);
    }
  });
});
