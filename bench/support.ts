// Benchmark helpers: timing, percentiles, temp folders and a printed table of figures.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Milliseconds of each of `runs` runs of `work`, sorted (for percentile). */
export function timed(runs: number, work: () => void): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

export async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'splitbook-bench-'));
  try {
    return await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type Figure = { name: string; value: string; goal?: string };

export function printFigures(title: string, figures: readonly Figure[]): void {
  console.log(`\n${title}`);
  const width = Math.max(...figures.map((f) => f.name.length));
  for (const f of figures)
    console.log(`  ${f.name.padEnd(width)}  ${f.value}${f.goal ? `   (goal: ${f.goal})` : ''}`);
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
