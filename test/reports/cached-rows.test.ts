// The tests and daily reports read what the cache keeps (typed columns, the list's statistics, the
// daily figures as written) instead of parsing and analysing every record: their CSV must be byte for
// byte what parsing and analysing every record afresh gives, on the report fixture (odd records
// included) and on a bulk store, at the results' fetch time and days later.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_FILE, USER_DATA_FILE } from '#core/create-core';
import { openDatabase } from '#core/db/open';
import type { Db } from '#core/db/types';
import { csvRow, csvTextRows, NumberText, type CsvValue } from '#core/reports/csv';
import { dailyCsvBlocks, dailyReport, dailyRows, dailyTextRows } from '#core/reports/daily-report';
import { NUMBER_KINDS } from '#core/reports/types';
import { DAILY_FIGURES, dailyMatches } from '#core/reports/results-text';
import { analysedTestsRows, testsRows } from '#core/reports/tests-report';
import type { ReportContext } from '#core/reports/types';
import { packText, unpackJson } from '#core/db/values';
import { TestFilter } from '#shared/contract/index';
import { uuid } from '../db/fixtures';
import { fillBulkStore } from './bulk';
import { reportFixture } from './support';
import { tempDir } from '../support/core';

const DAY_MS = 86_400_000;
/** The bulk store's sync (and results' fetch) time. */
const BULK_NOW = Date.parse('2026-05-10T09:00:00Z');
const BULK_TESTS = 60;

let fixture: Awaited<ReturnType<typeof reportFixture>>;
let db: Db;

beforeAll(async () => {
  fixture = await reportFixture();
  db = openDatabase(join(fixture.dir, DATABASE_FILE), {
    userDataFile: join(fixture.dir, USER_DATA_FILE),
  });
  fillBulkStore(db, { storeId: 'bulk', name: 'Bulk', tests: BULK_TESTS, days: 40, now: BULK_NOW });
}, 120_000);
afterAll(async () => {
  db.close();
  await fixture.remove();
});

function context(storeId: string | null, now: number): ReportContext {
  return {
    db,
    scope: { filter: TestFilter.parse({ storeId }), testId: null, now },
    progress: { done: 0, total: null },
  };
}

const csv = (rows: Iterable<CsvValue[]>) => [...rows].map(csvRow).join('');

/** The demo store's results were fetched when the fixture synced it: its rows hold at that time. */
function demoFetchedAt(): number {
  const row = db
    .prepare<[], { at: string }>(
      `SELECT max(fetched_at) AS at FROM results WHERE store_id = 'demo'`,
    )
    .get();
  return Date.parse(row?.at ?? '');
}

describe('tests report from the cache', () => {
  it('is byte for byte the report of every record parsed and analysed afresh, at any time', () => {
    const times = [
      demoFetchedAt(),
      BULK_NOW,
      BULK_NOW + 3 * DAY_MS,
      Date.parse('2026-03-01T12:00:00Z'),
    ];
    for (const storeId of [null, 'demo', 'bulk']) {
      for (const now of times) {
        const fresh = csv(analysedTestsRows(context(storeId, now)));
        expect(fresh.length).toBeGreaterThan(0);
        expect(csv(testsRows(context(storeId, now))), `${storeId} at ${now}`).toBe(fresh);
      }
    }
  });

  it('reads the call’s goal figures, and analyses the totals where the call cannot say', () => {
    // A call of other rules (or none) is not read: the binary analysis of the totals stands in.
    const older = db
      .prepare<[], { seq: number; json: string }>(
        `SELECT seq, json_set(unpack_json(decision_packed), '$.version', 0) AS json FROM tests_decision
         WHERE seq IN (SELECT seq FROM tests WHERE store_id = 'bulk' AND seq % 2 = 0)`,
      )
      .all();
    const repack = db.prepare(`UPDATE tests_decision SET decision_packed = ? WHERE seq = ?`);
    for (const row of older) repack.run(packText(row.json), row.seq);
    db.prepare(
      `DELETE FROM tests_decision WHERE seq IN (SELECT seq FROM tests WHERE store_id = 'bulk' AND seq % 3 = 0)`,
    ).run();
    const fresh = csv(analysedTestsRows(context('bulk', BULK_NOW)));
    expect(csv(testsRows(context('bulk', BULK_NOW)))).toBe(fresh);
  });

  it('reads a test whose kept statistics hold from the cache alone, and analyses the others afresh', () => {
    const before = csv(testsRows(context('bulk', BULK_NOW)));
    const later = csv(testsRows(context('bulk', BULK_NOW + 3 * DAY_MS)));
    // Records that no longer parse: a fresh analysis skips them, as the report always did.
    db.prepare(
      `UPDATE tests_raw SET raw_json = json_set(raw_json, '$.title', 7)
       WHERE seq IN (SELECT seq FROM tests WHERE store_id = 'bulk')`,
    ).run();
    // On the day the results were fetched, every row is read from the cache: none is lost.
    expect(csv(testsRows(context('bulk', BULK_NOW)))).toBe(before);
    // Days later the missing-days rule of a running test reads another clock than the kept alerts':
    // those tests are analysed afresh, so their (now unreadable) records are skipped.
    const rows = csv(testsRows(context('bulk', BULK_NOW + 3 * DAY_MS)));
    expect(later.split('\r\n')).toHaveLength(BULK_TESTS + 1);
    expect(rows).toBe('');
  });
});

/** Everything an async iterable gives, in order (Array.fromAsync is not in the ES2023 lib). */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('daily report from the cached text', () => {
  const number = dailyReport.columns.map((c) => NUMBER_KINDS.has(c.kind));

  it('gives the very rows of the parsed records, each number as String(n) writes it', async () => {
    // The figures' columns are DAILY_FIGURES, in order: the one list both paths read.
    expect(dailyReport.columns.slice(5).map((c) => c.name)).toEqual([...DAILY_FIGURES]);
    for (const storeId of [null, 'demo', 'bulk']) {
      const rows = [...dailyRows(context(storeId, BULK_NOW))];
      const texts = (await collect(dailyTextRows(context(storeId, BULK_NOW)))).flat();
      expect(rows.length).toBeGreaterThan(0);
      const asText = (v: CsvValue) =>
        v === null ? null : v instanceof NumberText ? v.text : String(v);
      expect(texts).toEqual(rows.map((row) => row.map(asText)));
      const line = csvTextRows(number);
      expect(texts.map(line).join('')).toBe(rows.map(csvRow).join(''));
    }
  });

  it('writes each CSV line as the CSV writer writes the text row, and counts them', async () => {
    const line = csvTextRows(number);
    for (const storeId of [null, 'demo', 'bulk']) {
      const texts = (await collect(dailyTextRows(context(storeId, BULK_NOW)))).flat();
      const blocks = await collect(dailyCsvBlocks(context(storeId, BULK_NOW)));
      expect(blocks.map((b) => b.text).join('')).toBe(texts.map(line).join(''));
      expect(blocks.reduce((sum, b) => sum + b.rows, 0)).toBe(texts.length);
      for (const block of blocks) expect(block.text.split('\r\n')).toHaveLength(block.rows + 1);
    }
  });

  it('reads a record laid out otherwise (a day key that is no date) by parsing it whole', async () => {
    const row = db
      .prepare<[string], { packed: Uint8Array }>(
        `SELECT raw_packed AS packed FROM results_raw WHERE store_id = 'demo' AND test_id = ?`,
      )
      .get(uuid(9001, 1));
    expect(row).toBeDefined();
    expect(dailyMatches(unpackJson(row?.packed ?? new Uint8Array()))).toBeNull();
    const ids = (await collect(dailyTextRows(context('demo', BULK_NOW)))).flat().map((r) => r[2]);
    expect(ids).toContain(uuid(9001, 1));
  });
});

describe('daily report read ahead', () => {
  // Records are decompressed ahead of the one written, on libuv's threads (UNPACK_AHEAD): a record
  // that cannot be decompressed fails the export with its error, and one still in flight when the
  // reader stops (a cancelled or failed export) is dropped without an unhandled rejection.
  const dir = tempDir('splitbook-read-ahead-');
  let own: Db;
  beforeAll(() => {
    own = openDatabase(join(dir.path, 'cache.db'), { userDataFile: join(dir.path, 'user.db') });
    fillBulkStore(own, { storeId: 'ahead', name: 'Ahead', tests: 8, days: 20, now: BULK_NOW });
    const third = own
      .prepare<[], { seq: number; id: string }>(
        `SELECT seq, id FROM tests WHERE store_id = 'ahead' ORDER BY seq LIMIT 1 OFFSET 2`,
      )
      .get();
    own
      .prepare(`UPDATE results_raw SET raw_packed = ? WHERE store_id = 'ahead' AND test_id = ?`)
      .run(Buffer.from('not brotli at all, not at all'), third?.id ?? '');
  });
  afterAll(() => {
    own.close();
    dir.remove();
  });
  const ownContext = (): ReportContext => ({
    db: own,
    scope: { filter: TestFilter.parse({ storeId: 'ahead' }), testId: null, now: BULK_NOW },
    progress: { done: 0, total: null },
  });

  it('fails on a record that cannot be decompressed, after the records before it', async () => {
    const blocks: number[] = [];
    await expect(
      (async () => {
        for await (const block of dailyCsvBlocks(ownContext())) blocks.push(block.rows);
      })(),
    ).rejects.toThrow(/decompression|brotli|invalid|corrupt/i);
    expect(blocks).toEqual([40, 40]);
  });

  it('drops what is in flight when the reader stops early', async () => {
    const blocks = dailyCsvBlocks(ownContext());
    // Two records given; the damaged third is being decompressed now.
    expect((await blocks.next()).done).toBe(false);
    expect((await blocks.next()).done).toBe(false);
    // Stopping must not leave its failure unhandled (vitest fails a run with an unhandled rejection).
    await blocks.return(undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
});
