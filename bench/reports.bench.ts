// Report export benchmark: `tests` for 10,000 tests and `daily` for 1,000 tests × 365 days, rows per
// second and peak RSS, beside a bare loop reading the same rows from SQLite. Each leg runs in its own
// child process (test/reports/memory-child.ts), so each peak RSS is that leg's alone.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fmt, printFigures, withTempDir } from './support';

const CHILD = resolve('test/reports/memory-child.ts');
const TSX = resolve('node_modules/.bin/tsx');

type Export = { rows: number; ms: number; rssBeforeMiB: number; peakRssMiB: number };
type Read = { rows: number; chars: number; ms: number; peakRssMiB: number };

function child<T>(args: string[]): T {
  const output = execFileSync(TSX, [CHILD, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(output.trim().split('\n').at(-1) ?? 'null') as T;
}

async function leg(report: 'tests' | 'daily', tests: number, days: number) {
  return withTempDir(async (dir) => {
    child(['fill', dir, String(tests), String(days)]);
    const read = child<Read>(['read', dir]);
    const csv = child<Export>(['export', dir, report, 'csv', join(dir, `${report}.csv`)]);
    const ratio = csv.ms / read.ms;
    printFigures(`reports: ${report}, ${tests.toLocaleString('en')} tests × ${days} days`, [
      { name: 'export rows', value: csv.rows.toLocaleString('en') },
      {
        name: 'export CSV',
        value: `${fmt(csv.ms / 1000, 2)} s, ${Math.round(csv.rows / (csv.ms / 1000)).toLocaleString('en')} rows/s`,
      },
      {
        name: 'export peak RSS',
        value: `${fmt(csv.peakRssMiB, 0)} MiB (${fmt(csv.rssBeforeMiB, 0)} MiB before the first row)`,
      },
      {
        name: 'bare read (SQLite + unpack)',
        value: `${fmt(read.ms / 1000, 2)} s for ${read.rows.toLocaleString('en')} test rows, ${fmt(read.chars / 1024 / 1024, 0)} MiB of JSON`,
      },
      { name: 'bare read peak RSS', value: `${fmt(read.peakRssMiB, 0)} MiB` },
      { name: 'export ÷ bare read', value: `${fmt(ratio, 2)}×`, goal: '≤ 2×' },
    ]);
  });
}

export async function benchReports(): Promise<void> {
  await leg('tests', 10_000, 30);
  await leg('daily', 1_000, 365);
}
