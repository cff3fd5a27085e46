// How a results record is laid out before it is packed (db/record-text.ts, cache v22): its daily series
// as columns, rates that are exact ratios of a day's counts left out, and always the same text back.
import { brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { computeResults } from '#simulator/results';
import { isLaidOut, layOutRecord, recordText } from '#core/db/record-text';
import { packJson, unpackJson, unpackJsonAsync, unpackJsonUntil } from '#core/db/values';
import { makeResults, makeTest } from './fixtures';

const MARKER = ',"daily":';
const upTo = (text: string) => text.slice(0, text.indexOf(MARKER) + MARKER.length);
const laidOut = (value: unknown) => layOutRecord(value, JSON.stringify(value));

/** A simulated record's day whose rates are the ratios of its counts, as the simulator writes them. */
function day(visitors: number, conversions: number, revenue: number) {
  const side = {
    visitors,
    visits: visitors + 7,
    conversions,
    orders: conversions,
    carts: conversions + 3,
    clicks: conversions + 11,
    revenue,
    cvr: (conversions / visitors) * 100,
    cnv: (conversions / (visitors + 7)) * 100,
    ctr: ((conversions + 11) / (visitors + 7)) * 100,
    acr: ((conversions + 3) / visitors) * 100,
    aov: conversions === 0 ? 0 : revenue / conversions,
    rpv: revenue / visitors,
    rps: revenue / visitors,
    mobile: null,
  };
  return {
    performance: {
      control: side,
      variant: { ...side, conversions: 0, orders: 0, aov: 0, cvr: 0, cnv: 0 },
    },
  };
}

const record = (daily: Record<string, unknown>) => ({
  id: 'x',
  lift: 1.5,
  control: { visitors: 3 },
  daily,
  lifecycle: { tier: 'learning' },
});

describe('layOutRecord', () => {
  it('lays a daily series out as columns, leaves out the rates that are ratios of the counts, and reads back the same text', () => {
    const value = record({
      '2026-02-01': day(118, 5, 250.26),
      '2026-02-02': day(89, 4, 483.59),
      '2026-02-03': day(1, 0, 0),
    });
    const text = JSON.stringify(value);
    const out = laidOut(value);
    expect(isLaidOut(out)).toBe(true);
    expect(out).not.toContain('4.23728813559322'); // control's cvr on the first day, left out
    expect(out.length).toBeLessThan(text.length);
    expect(recordText(out)).toBe(text);
  });

  it("leaves out the totals' and segments' rates their counts give, and gives them back", () => {
    const fixture = makeResults('00000000-0000-4000-8000-000000000006');
    const totals = day(1180, 50, 2502.6).performance.control;
    const value = {
      ...fixture,
      control: { ...totals, desktop: totals },
      daily: { '2026-02-01': day(118, 5, 250.26) },
    };
    const cvr = String(totals.cvr);
    expect(JSON.stringify(value)).toContain(`"cvr":${cvr}`);
    const out = laidOut(value);
    expect(out.split('\u0001')[1]).toContain('"cvr":null');
    expect(recordText(out)).toBe(JSON.stringify(value));
  });

  it("keeps a rate that is not its counts' ratio as it was sent", () => {
    const odd = day(118, 5, 250.26);
    odd.performance.control.cvr = 4.24; // rounded by the API
    const value = record({ '2026-02-01': day(89, 4, 483.59), '2026-02-02': odd });
    const out = laidOut(value);
    expect(isLaidOut(out)).toBe(true);
    expect(out).toContain('4.24');
    expect(recordText(out)).toBe(JSON.stringify(value));
  });

  it("keeps the plain text when the days differ in shape, hold the hole's text, or there are none", () => {
    const extra = { ...day(89, 4, 483.59), note: 1 };
    for (const value of [
      record({ '2026-02-01': day(118, 5, 250.26), '2026-02-02': extra }),
      record({ '2026-02-01': { label: '\u0000#', n: 1 } }),
      record({}),
      { id: 'x', daily: 3 },
      [1, 2],
      null,
    ]) {
      const text = JSON.stringify(value);
      expect(laidOut(value)).toBe(text);
    }
  });

  it("reads the fixtures' and the simulator's records back byte for byte", () => {
    const fixture = makeResults('00000000-0000-4000-8000-000000000003');
    expect(recordText(laidOut(fixture))).toBe(JSON.stringify(fixture));
    const start = '2026-01-01T00:00:00.000Z';
    const test = makeTest({ n: 4, status: 'active', startAt: start, createdAt: start });
    const simulated = computeResults(7, test, Date.parse(start) + 40 * 86_400_000);
    expect(simulated).not.toBeNull();
    const out = laidOut(simulated);
    expect(isLaidOut(out)).toBe(true);
    expect(recordText(out)).toBe(JSON.stringify(simulated));
  });

  it('says so when a laid-out record is damaged, rather than reading other numbers', () => {
    const out = laidOut(record({ '2026-02-01': day(118, 5, 250.26) }));
    expect(() => recordText(out.replace(/"c":\[/, '"c":[7,'))).toThrow(/damaged/);
  });
});

describe('packJson of a laid-out record', () => {
  const value = {
    ...makeResults('00000000-0000-4000-8000-000000000005'),
    daily: { '2026-02-01': day(118, 5, 250.26), '2026-02-02': day(89, 4, 483.59) },
  };
  const text = JSON.stringify(value);

  it('is stored laid out and read back whole, at once or on a thread, as the plain text', async () => {
    const packed = packJson(value);
    expect(isLaidOut(brotliDecompressSync(packed).toString('utf8'))).toBe(true);
    expect(unpackJson(packed)).toBe(text);
    expect(await unpackJsonAsync(packed)).toBe(text);
  });

  it('reads its start up to the daily series from the verbatim head, and a marker past it from the whole', () => {
    const packed = packJson(value);
    expect(unpackJsonUntil(packed, MARKER)).toBe(upTo(text));
    const lifecycle = ',"lifecycle":';
    expect(unpackJsonUntil(packed, lifecycle)).toBe(
      text.slice(0, text.indexOf(lifecycle) + lifecycle.length),
    );
    expect(unpackJsonUntil(packed, ',"nowhere":')).toBeNull();
  });
});
