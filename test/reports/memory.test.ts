// Memory: exporting the daily series of 1,000 tests × 365 days (730,000 rows) keeps the exporting
// process's peak RSS under PEAK_RSS_MIB. The cache is filled by one child process and exported by
// another, so the peak measured is the export's alone (maxRSS never goes down within a process).
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/core';

/** The bound: ~120 MiB before the first row (Node, tsx, better-sqlite3, the app), measured peak 230–233 MiB; the margin absorbs GC timing. */
export const PEAK_RSS_MIB = 288;
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

describe('export memory', () => {
  it(
    `exports ${TESTS} tests × ${DAYS} days of daily rows within ${PEAK_RSS_MIB} MiB peak RSS`,
    { timeout: 300_000 },
    () => {
      const filled = child(['fill', dir.path, String(TESTS), String(DAYS)]) as {
        tests: number;
        dailyRows: number;
      };
      expect(filled.tests).toBe(TESTS);
      expect(filled.dailyRows).toBe(TESTS * DAYS * 2);
      const out = join(dir.path, 'daily.csv');
      const result = child(['export', dir.path, 'daily', 'csv', out]) as {
        rows: number;
        ms: number;
        rssBeforeMiB: number;
        peakRssMiB: number;
      };
      console.log(
        `daily export: ${result.rows} rows, ${(statSync(out).size / 1024 / 1024).toFixed(0)} MiB file, ` +
          `${(result.ms / 1000).toFixed(1)} s, RSS before ${result.rssBeforeMiB.toFixed(0)} MiB, peak ${result.peakRssMiB.toFixed(0)} MiB`,
      );
      expect(result.rows).toBe(filled.dailyRows);
      expect(result.peakRssMiB).toBeLessThan(PEAK_RSS_MIB);
    },
  );
});
