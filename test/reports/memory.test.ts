// Memory: exporting the daily series of 1,000 tests × 365 days (730,000 rows), as CSV and as .xlsx,
// keeps the exporting process's peak RSS under PEAK_RSS_MIB. The cache is filled by one child process
// and each export runs in another, so the peak measured is that export's alone (maxRSS never goes down
// within a process).
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/core';

/**
 * The bound is the goal of issue 22 for the .xlsx export: ~145 MiB before the first row (Node, tsx,
 * better-sqlite3, the app), measured peaks 235–272 MiB for CSV and 258–289 MiB for .xlsx. That is
 * 15–20 MiB more than when the records were decompressed and the sheet deflated on the writing thread
 * (now on libuv's threads, beside it): at the sampled peaks, 45–67 MiB of buffers outside V8's heap
 * await its collector.
 */
export const PEAK_RSS_MIB = 300;
const TESTS = 1_000;
const DAYS = 365;

const CHILD = resolve('test/reports/memory-child.ts');
const TSX = resolve('node_modules/.bin/tsx');
const dir = tempDir('splitbook-report-memory-');
afterAll(() => dir.remove());

function child(args: string[]): unknown {
  const output = execFileSync(TSX, [CHILD, ...args], { encoding: 'utf8', timeout: 240_000 });
  return JSON.parse(output.trim().split('\n').at(-1) ?? 'null');
}

type Exported = { rows: number; ms: number; rssBeforeMiB: number; peakRssMiB: number };

describe('export memory', () => {
  let filled: { tests: number; dailyRows: number };
  beforeAll(() => {
    filled = child(['fill', dir.path, String(TESTS), String(DAYS)]) as typeof filled;
  }, 300_000);

  for (const format of ['csv', 'xlsx'] as const) {
    it(
      `exports ${TESTS} tests × ${DAYS} days of daily rows as ${format} within ${PEAK_RSS_MIB} MiB peak RSS`,
      { timeout: 300_000 },
      () => {
        expect(filled.tests).toBe(TESTS);
        expect(filled.dailyRows).toBe(TESTS * DAYS * 2);
        const out = join(dir.path, `daily.${format}`);
        const result = child(['export', dir.path, 'daily', format, out]) as Exported;
        console.log(
          `daily export (${format}): ${result.rows} rows, ${(statSync(out).size / 1024 / 1024).toFixed(0)} MiB file, ` +
            `${(result.ms / 1000).toFixed(1)} s, RSS before ${result.rssBeforeMiB.toFixed(0)} MiB, peak ${result.peakRssMiB.toFixed(0)} MiB`,
        );
        expect(result.rows).toBe(filled.dailyRows);
        expect(result.peakRssMiB).toBeLessThan(PEAK_RSS_MIB);
      },
    );
  }
});
