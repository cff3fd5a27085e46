// Report export benchmark (issue 22, items 1 and 5): `tests` for 10,000 tests × 30 days and `daily` for
// 1,000 tests × 365 days as CSV beside a bare loop reading the same rows from SQLite (the floor), and
// the daily rows as .xlsx beside their CSV. Each run is a child process (test/reports/memory-child.ts),
// so each peak RSS is that run's alone; the legs take turns, run after run, so the machine's load
// drifts onto all of them alike. Wall and CPU time both: on a busy machine CPU time is the steadier.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fmt, printFigures, withTempDir } from './support';

const CHILD = resolve('test/reports/memory-child.ts');
const TSX = resolve('node_modules/.bin/tsx');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

type Export = { rows: number; ms: number; cpuMs: number; rssBeforeMiB: number; peakRssMiB: number };
type Read = { rows: number; chars: number; ms: number; cpuMs: number; peakRssMiB: number };

function child<T>(args: string[]): T {
  const output = execFileSync(TSX, [CHILD, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(output.trim().split('\n').at(-1) ?? 'null') as T;
}

/** "median (min–max)" of some figures. */
function range(values: readonly number[], digits: number, unit = ''): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
  const spread =
    sorted.length > 1 ? ` (${fmt(sorted[0] ?? 0, digits)}–${fmt(sorted.at(-1) ?? 0, digits)})` : '';
  return `${fmt(median, digits)}${unit}${spread}`;
}

const seconds = (ms: number[]) =>
  range(
    ms.map((m) => m / 1000),
    2,
    ' s',
  );
const ratios = (a: number[], b: number[]) =>
  range(
    a.map((x, i) => x / (b[i] ?? Number.NaN)),
    2,
    '×',
  );

async function leg(report: 'tests' | 'daily', tests: number, days: number, xlsx: boolean) {
  return withTempDir(async (dir) => {
    child(['fill', dir, String(tests), String(days)]);
    const reads: Read[] = [];
    const csvs: Export[] = [];
    const books: Export[] = [];
    for (let run = 0; run < RUNS; run++) {
      reads.push(child<Read>(['read', dir]));
      csvs.push(child<Export>(['export', dir, report, 'csv', join(dir, `${report}.csv`)]));
      if (xlsx)
        books.push(child<Export>(['export', dir, report, 'xlsx', join(dir, `${report}.xlsx`)]));
    }
    const rows = csvs[0]?.rows ?? 0;
    const wall = (runs: { ms: number }[]) => runs.map((r) => r.ms);
    const cpu = (runs: { cpuMs: number }[]) => runs.map((r) => r.cpuMs);
    printFigures(
      `reports: ${report}, ${tests.toLocaleString('en')} tests × ${days} days, ${rows.toLocaleString('en')} rows; median (min–max) of ${RUNS} runs`,
      [
        {
          name: 'bare read (SQLite + unpack), wall',
          value: `${seconds(wall(reads))}, ${fmt((reads[0]?.chars ?? 0) / 1024 / 1024, 0)} MiB of JSON`,
        },
        { name: 'bare read, CPU', value: seconds(cpu(reads)) },
        { name: 'export CSV, wall', value: seconds(wall(csvs)) },
        { name: 'export CSV, CPU', value: seconds(cpu(csvs)) },
        {
          name: 'export CSV peak RSS',
          value: `${range(
            csvs.map((c) => c.peakRssMiB),
            0,
            ' MiB',
          )} (${fmt(csvs[0]?.rssBeforeMiB ?? 0, 0)} MiB before the first row)`,
        },
        { name: 'CSV ÷ bare read, wall', value: ratios(wall(csvs), wall(reads)), goal: '≤ 2×' },
        { name: 'CSV ÷ bare read, CPU', value: ratios(cpu(csvs), cpu(reads)), goal: '≤ 2×' },
        ...(xlsx
          ? [
              { name: 'export .xlsx, wall', value: seconds(wall(books)) },
              { name: 'export .xlsx, CPU', value: seconds(cpu(books)) },
              {
                name: '.xlsx ÷ CSV, wall',
                value: ratios(wall(books), wall(csvs)),
                goal: '≤ 3×',
              },
              { name: '.xlsx ÷ CSV, CPU', value: ratios(cpu(books), cpu(csvs)), goal: '≤ 3×' },
              {
                name: '.xlsx peak RSS',
                value: range(
                  books.map((b) => b.peakRssMiB),
                  0,
                  ' MiB',
                ),
                goal: '≤ 300 MiB',
              },
            ]
          : []),
      ],
    );
  });
}

export async function benchReports(): Promise<void> {
  await leg('tests', 10_000, 30, false);
  await leg('daily', 1_000, 365, true);
}
