// Client report benchmark: the report of a store with 100 tests (60 days of results each), written from
// a real cache, its time and its size, against the goals (under 3 s, under 5 MB): the full sections,
// and once a card a test. No screenshots (the bulk store has no addresses that answer).
import { join } from 'node:path';
import { openDatabase } from '#core/db/open';
import { buildClientReport } from '#core/reports/client/build';
import { fillBulkStore } from '../test/reports/bulk';
import { fmt, printFigures, withTempDir } from './support';

const NOW = Date.parse('2026-11-01T12:00:00Z');

export async function benchClientReport(): Promise<void> {
  await withTempDir(async (dir) => {
    const db = openDatabase(join(dir, 'splitbook.db'), {
      userDataFile: join(dir, 'splitbook-user.db'),
    });
    try {
      fillBulkStore(db, { storeId: 'bulk', name: 'Bulk', tests: 100, days: 60, now: NOW });
      const scope = { storeId: 'bulk', testId: null, since: '2000-01-01', until: '2026-11-01' };
      await buildClientReport(db, scope, 'html', NOW);
      const times: number[] = [];
      let bytes = 0;
      let tests = 0;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        const report = await buildClientReport(db, scope, 'html', NOW, { detail: true });
        times.push(performance.now() - started);
        bytes = Buffer.byteLength(report.content);
        tests = report.tests;
      }
      times.sort((a, b) => a - b);
      const started = performance.now();
      const compact = await buildClientReport(db, scope, 'html', NOW);
      const compactMs = performance.now() - started;
      printFigures(
        `Client report: a store of ${tests} tests × 60 days (HTML, inline SVG, full sections)`,
        [
          {
            name: 'written in (min of 3)',
            value: `${fmt(times[0] ?? 0, 0)} ms`,
            goal: '< 3000 ms',
          },
          { name: 'written in (max of 3)', value: `${fmt(times[2] ?? 0, 0)} ms` },
          { name: 'size', value: `${fmt(bytes / 1024 / 1024, 2)} MB`, goal: '< 5 MB' },
          { name: 'a card a test: written in', value: `${fmt(compactMs, 0)} ms` },
          {
            name: 'a card a test: size',
            value: `${fmt(Buffer.byteLength(compact.content) / 1024 / 1024, 2)} MB`,
          },
        ],
      );
    } finally {
      db.close();
    }
  });
}
