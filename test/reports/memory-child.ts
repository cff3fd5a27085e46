// Child process of the memory test (and the benchmark's export leg): `fill DIR TESTS DAYS` writes a
// large cache; `export DIR REPORT FORMAT OUT` exports one report from it to a file and prints JSON with
// its rows, its time and this process's peak RSS (process.resourceUsage().maxRSS, in KiB); `read DIR`
// is the benchmark's bare loop: the same test and results rows read from SQLite, results unpacked.
// Times are given as wall time (ms) and this process's CPU time (cpuMs).
import { join } from 'node:path';
import { openDatabase } from '#core/db/open';
import { unpackJson } from '#core/db/values';
import { writeExport } from '#core/reports/export';
import { writeFileAtomically } from '#core/reports/write-file';
import { TestFilter, type ExportFormat, type ReportName } from '#shared/contract/index';
import { fillBulkStore } from './bulk';

export const NOW = Date.parse('2026-11-01T12:00:00Z');

/** This process's CPU time so far (user + system), in ms: steadier than wall time on a busy machine. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const [mode, dir = '', ...rest] = process.argv.slice(2);
const db = openDatabase(join(dir, 'splitbook.db'), {
  userDataFile: join(dir, 'splitbook-user.db'),
});
try {
  if (mode === 'fill') {
    const [tests = '1000', days = '365'] = rest;
    const filled = fillBulkStore(db, {
      storeId: 'bulk',
      name: 'Bulk',
      tests: Number(tests),
      days: Number(days),
      now: NOW,
    });
    console.log(JSON.stringify(filled));
  } else if (mode === 'export') {
    const [report = 'daily', format = 'csv', out = join(dir, 'out.csv')] = rest;
    const before = process.memoryUsage().rss;
    const cpuBefore = cpuMs();
    const started = performance.now();
    const rows = await writeFileAtomically(out, (stream) =>
      writeExport(
        db,
        {
          report: report as ReportName,
          format: format as ExportFormat,
          bom: true,
          filter: TestFilter.parse({ storeId: 'bulk' }),
          testId: null,
        },
        stream,
        { now: NOW },
      ),
    );
    const ms = performance.now() - started;
    console.log(
      JSON.stringify({
        rows,
        ms,
        cpuMs: cpuMs() - cpuBefore,
        rssBeforeMiB: before / 1024 / 1024,
        peakRssMiB: process.resourceUsage().maxRSS / 1024,
      }),
    );
  } else if (mode === 'read') {
    const cpuBefore = cpuMs();
    const started = performance.now();
    let rows = 0;
    let chars = 0;
    const select = db.prepare<[], { testJson: string; packed: Uint8Array | null }>(
      `SELECT tr.raw_json AS testJson, rr.raw_packed AS packed
       FROM tests t JOIN tests_raw tr ON tr.seq = t.seq
       LEFT JOIN results_raw rr ON rr.store_id = t.store_id AND rr.test_id = t.id
       WHERE t.store_id = 'bulk' AND t.removed = 0 ORDER BY t.seq`,
    );
    for (const row of select.iterate()) {
      rows += 1;
      chars += row.testJson.length + (row.packed ? unpackJson(row.packed).length : 0);
    }
    const ms = performance.now() - started;
    console.log(
      JSON.stringify({
        rows,
        chars,
        ms,
        cpuMs: cpuMs() - cpuBefore,
        peakRssMiB: process.resourceUsage().maxRSS / 1024,
      }),
    );
  } else {
    throw new Error(`usage: memory-child fill|export DIR …`);
  }
} finally {
  db.close();
}
