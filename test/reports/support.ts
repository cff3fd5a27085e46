// Report tests' fixture: the demo store synced through a real core, plus tests written into the same
// cache with the odd shapes a real store sends (unknown enums, no variant, missing segments, sparse
// days, formula payloads in every kind of text).
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import type { Core } from '#core/types';
import { openDatabase } from '#core/db/open';
import { upsertTests } from '#core/db/cache/tests';
import { upsertResults } from '#core/decisions/results';
import { replaceCustomAudiences } from '#core/db/cache/audiences';
import { CustomAudience } from '#shared/api/index';
import { makeResults, makeTest, stats, tag, uuid } from '../db/fixtures';
import { nextSyncReport, startCore, tempDir } from '../support/core';
import type { CoreDeps, ExportRequest } from '#core/index';
import { TestFilter } from '#shared/contract/index';

export const PAYLOADS = [
  '=HYPERLINK("http://evil.example","click")',
  '+1+1',
  '-2+3',
  '@SUM(A1:A2)',
  '\t=1+1',
  '\r=1+1',
  'UX; =1+1',
  'Price, -5% =cmd|',
  'Quotes "inside", commas, and\nnew lines; Ünïcødé ✓ 日本語',
];

export async function reportFixture(
  overrides: Partial<CoreDeps> = {},
): Promise<{ core: Core; dir: string; remove(): Promise<void> }> {
  const dir = tempDir('splitbook-reports-');
  const core = await startCore(dir.path, { demo: { tests: 40, seed: 3 }, ...overrides });
  const finished = nextSyncReport(core, 'demo');
  await core.services.stores.openDemo({});
  await finished;
  // A second connection writes the odd records the simulator does not make (WAL: both see them).
  const db = openDatabase(join(dir.path, 'splitbook.db'));
  try {
    const odd = [
      makeTest({
        n: 9001,
        title: PAYLOADS[0] ?? '',
        status: 'hibernating',
        stage: 'someday',
        goal: 'conversion-rate',
        hypothesisDescription: PAYLOADS[6] ?? '',
        tags: PAYLOADS.map((name, i) => tag(9000 + i, name)),
        startAt: '2026-01-10T00:00:00+02:00',
        priority: PAYLOADS[1] ?? '',
      }),
      makeTest({
        n: 9002,
        title: PAYLOADS[8] ?? '',
        variant: null,
        goal: 'revenue-per-visitor',
        startAt: '2026-01-20T00:00:00Z',
      }),
      makeTest({
        n: 9003,
        title: 'Unknown goal',
        goal: 'time-on-page',
        startAt: '2026-01-20T00:00:00Z',
      }),
    ];
    upsertTests(db, {
      storeId: 'demo',
      tests: odd,
      runId: 'odd',
      syncedAt: '2026-02-03T00:00:00Z',
    });
    const sparse = makeResults(uuid(9001, 1), {
      // Negative lift, a side without segments, days missing from the map, a key that is no date.
      lift: -5.2,
      control: stats(1000, 30, { mobile: stats(600, 15), new: stats(300, 9) }),
      variant: stats(1000, 25, { desktop: stats(420, 11) }),
      daily: {
        '2026-02-05': { performance: { control: stats(100, 3), variant: stats(100, 1) } },
        '2026-02-01': { performance: { control: stats(500, 14), variant: stats(500, 17) } },
        'not-a-date': { performance: { control: stats(1, 1), variant: stats(1, 1) } },
      },
    });
    for (const [testId, results] of [
      [uuid(9001, 1), sparse],
      [
        uuid(9002, 1),
        makeResults(uuid(9002, 1), {
          lifecycle: { ...makeResults(uuid(9002, 1)).lifecycle, tier: 'dormant' },
        }),
      ],
    ] as const) {
      upsertResults(db, {
        storeId: 'demo',
        testId,
        results,
        fetchedAt: '2026-02-03T00:00:00Z',
        testUpdatedAt: '2026-02-01T00:00:00Z',
        testStatus: 'active',
      });
    }
    replaceCustomAudiences(db, {
      storeId: 'demo',
      audiences: [
        CustomAudience.parse({
          id: uuid(9100, 5),
          name: PAYLOADS[0],
          rules: [{ dimension: 'country', operator: 'in', values: ['=1+1', 'FR'], selector: null }],
        }),
      ],
      syncedAt: '2026-02-03T00:00:00Z',
    });
  } finally {
    db.close();
  }
  return {
    core,
    dir: dir.path,
    async remove() {
      await core.close();
      dir.remove();
    },
  };
}

export function request(
  report: ExportRequest['report'],
  fields: Partial<ExportRequest> = {},
): ExportRequest {
  return {
    report,
    format: 'csv',
    bom: true,
    filter: TestFilter.parse({ storeId: 'demo' }),
    testId: null,
    ...fields,
  };
}

/** Records as strings, with csv-parse (RFC 4180, BOM stripped); the header becomes each record's keys. */
export function parseCsv(text: string): Record<string, string>[] {
  return parse(text, { bom: true, columns: true, relax_quotes: false, record_delimiter: '\r\n' });
}

/** What an exported text cell must read as: OWASP's leading quote where a formula could start. */
export function neutralised(text: string | null): string {
  if (text === null || text === '') return '';
  return /^[=+\-@\t\r\n]/.test(text) || /[,;\t|\r\n]\s*[=+\-@]/.test(text) ? `'${text}` : text;
}

/** A numeric cell read back: '' for null, else the exact number. */
export function numberCell(cell: string | undefined): number | null {
  if (cell === undefined || cell === '') return null;
  const n = Number(cell);
  if (!Number.isFinite(n)) throw new Error(`Not a number: ${cell}`);
  return n;
}

/** An output whose writes fail with ENOSPC after the first `writes`, as a disk that fills does. */
export function fillingDisk(writes: number): Writable {
  let calls = 0;
  return new Writable({
    write(_chunk, _encoding, callback) {
      calls += 1;
      callback(
        calls > writes
          ? Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
          : null,
      );
    },
  });
}
