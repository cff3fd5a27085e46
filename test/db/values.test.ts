// How records are packed for the cache (db/values.ts): what one quality writes, any reads back.
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { PACK_QUALITY, packJson, unpackJson, unpackJsonUntil } from '#core/db/values';
import { makeResults } from './fixtures';

describe('packJson', () => {
  const record = makeResults('00000000-0000-4000-8000-000000000001');
  const text = JSON.stringify(record);

  it('packs a record to Brotli at the chosen quality and reads it back to the same JSON', () => {
    const packed = packJson(record);
    expect(packed.length).toBeLessThan(Buffer.byteLength(text));
    expect(unpackJson(packed)).toBe(text);
    expect(PACK_QUALITY).toBe(4);
  });

  it('reads what earlier versions packed at other qualities (quality 1 until cache v21, others before)', () => {
    for (const quality of [1, 2, 11]) {
      const packed = brotliCompressSync(text, {
        params: { [zlibConstants.BROTLI_PARAM_QUALITY]: quality },
      });
      expect(unpackJson(packed)).toBe(text);
    }
  });
});

describe('unpackJsonUntil', () => {
  const record = makeResults('00000000-0000-4000-8000-000000000002');
  const text = JSON.stringify(record);
  const marker = ',"daily":';
  const upTo = (whole: string) => whole.slice(0, whole.indexOf(marker) + marker.length);

  it("gives the record's text up to and including the marker, as the whole text has it", () => {
    expect(text.indexOf(marker)).toBeGreaterThan(0);
    expect(unpackJsonUntil(packJson(record), marker)).toBe(upTo(text));
  });

  it('reads on past the first bytes, and to the end, when the marker comes late', () => {
    // Text that does not compress puts the marker beyond the first 2 kB of packed bytes, then beyond
    // every doubling of them (the last try unpacks it all).
    for (const size of [3_000, 40_000]) {
      const late = { noise: randomBytes(size).toString('base64'), ...record };
      const whole = JSON.stringify(late);
      expect(unpackJsonUntil(packJson(late), marker)).toBe(upTo(whole));
    }
  });

  it('never cuts a character: text of multi-byte characters before the marker reads back whole', () => {
    const wide = { title: 'é€😀'.repeat(4_000), ...record };
    const whole = JSON.stringify(wide);
    expect(unpackJsonUntil(packJson(wide), marker)).toBe(upTo(whole));
  });

  it('is null when the record has no marker, and reads any quality', () => {
    expect(unpackJsonUntil(packJson({ control: 1 }), marker)).toBeNull();
    const packed = brotliCompressSync(text, {
      params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 },
    });
    expect(unpackJsonUntil(packed, marker)).toBe(upTo(text));
  });
});
