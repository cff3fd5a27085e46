// The error budget behind every call: group sequential boundaries against published values and a
// brute-force simulation, and the always-valid interval's coverage.
import { describe, expect, it } from 'vitest';
import {
  mixtureHalfWidth,
  mixtureTuning,
  obrienFlemingSpent,
  SequentialBoundaries,
} from '#shared/domain/decisions/index';
import { seeded } from './decision-trials';

function gaussian(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

describe("Lan–DeMets O'Brien–Fleming-type group sequential boundaries", () => {
  it('match the published two-sided boundaries for 5 equally spaced looks at α = 0.05 (gsDesign sfLDOF)', () => {
    const walk = new SequentialBoundaries(0.05);
    const boundaries = [1, 2, 3, 4, 5].map((k) =>
      walk.look(k / 5, obrienFlemingSpent(k / 5, 0.05)),
    );
    const published = [4.8769, 3.357, 2.6803, 2.2898, 2.031];
    boundaries.forEach((c, i) => expect(c).toBeCloseTo(published[i] ?? 0, 3));
    expect(walk.spent).toBeCloseTo(0.05, 12);
  });

  it('spend nothing at t = 0, α in full at t = 1, and grow in between', () => {
    expect(obrienFlemingSpent(0, 0.05)).toBe(0);
    expect(obrienFlemingSpent(1, 0.05)).toBe(0.05);
    expect(obrienFlemingSpent(0.5, 0.05)).toBeGreaterThan(obrienFlemingSpent(0.25, 0.05));
    expect(obrienFlemingSpent(0.25, 0.05)).toBeLessThan(1e-4);
  });

  it('agree with a 401-point grid to 1e-3 on daily looks with uneven information', () => {
    const fine = new SequentialBoundaries(0.05, 401);
    const used = new SequentialBoundaries(0.05);
    for (let day = 7; day <= 28; day++) {
      const info = day + (day % 7 === 6 ? 0.6 : 0); // a busy day each week
      const t = day / 28;
      expect(used.look(info, obrienFlemingSpent(t, 0.05))).toBeCloseTo(
        fine.look(info, obrienFlemingSpent(t, 0.05)),
        3,
      );
    }
  });

  it('stay accurate over a long plan of daily looks (180 days), where each day is a small step', () => {
    const fine = new SequentialBoundaries(0.05, 801);
    const used = new SequentialBoundaries(0.05);
    for (let day = 7; day <= 180; day++) {
      const t = day / 180;
      expect(used.look(t, obrienFlemingSpent(t, 0.05))).toBeCloseTo(
        fine.look(t, obrienFlemingSpent(t, 0.05)),
        2,
      );
    }
    expect(used.spent).toBeCloseTo(0.05, 12);
  });

  it('a look whose information did not grow (a paused day, a revenue variance that rose) is no look: nothing spent, the boundaries unchanged', () => {
    const walk = new SequentialBoundaries(0.2);
    const reference = new SequentialBoundaries(0.2);
    const infos = [53.2, 70.6, 92.5, 92.5, 92.6, 98.9, 113.8];
    const spent = [0.0118, 0.024, 0.04, 0.0617, 0.0856, 0.1061, 0.1287];
    const boundaries = infos.map((info, k) => walk.look(info, spent[k] ?? 0));
    // Looks 4 and 5 add nothing (or 0.1%): no boundary, nothing spent; the next spends what it may.
    expect(boundaries[3]).toBe(Infinity);
    expect(boundaries[4]).toBe(Infinity);
    for (const k of [0, 1, 2, 5, 6]) {
      expect(boundaries[k]).toBeGreaterThan(1);
      expect(boundaries[k]).toBeLessThan(3);
      // The same as a walk that never saw the empty looks.
      expect(boundaries[k]).toBeCloseTo(reference.look(infos[k] ?? 0, spent[k] ?? 0), 10);
    }
    expect(walk.spent).toBeCloseTo(0.1287, 10);
  });

  it('keep the chance of any false call at α when looked at daily (200,000 simulated null paths)', () => {
    const walk = new SequentialBoundaries(0.05);
    const boundaries: number[] = [];
    for (let day = 7; day <= 28; day++)
      boundaries.push(walk.look(day, obrienFlemingSpent(day / 28, 0.05)));
    const normal = gaussian(seeded(7));
    let rejected = 0;
    const paths = 200_000;
    for (let path = 0; path < paths; path++) {
      let score = 0;
      for (let day = 1; day <= 28; day++) {
        score += normal();
        if (day >= 7 && Math.abs(score / Math.sqrt(day)) >= (boundaries[day - 7] ?? Infinity)) {
          rejected++;
          break;
        }
      }
    }
    // Binomial standard error at 0.05 over 200,000 paths: 0.0005.
    expect(rejected / paths).toBeGreaterThan(0.0475);
    expect(rejected / paths).toBeLessThan(0.0525);
  });

  it('a projection from a clone leaves the original untouched', () => {
    const walk = new SequentialBoundaries(0.05);
    walk.look(1, obrienFlemingSpent(0.25, 0.05));
    const projected = walk.clone();
    const ahead = projected.look(2, obrienFlemingSpent(0.5, 0.05));
    projected.look(3, obrienFlemingSpent(0.75, 0.05));
    expect(walk.spent).toBeCloseTo(obrienFlemingSpent(0.25, 0.05), 12);
    expect(walk.look(2, obrienFlemingSpent(0.5, 0.05))).toBeCloseTo(ahead, 10);
  });
});

describe('the normal-mixture confidence sequence (always valid)', () => {
  it('covers the truth at every look at once in at least 1 − α of paths', () => {
    const normal = gaussian(seeded(11));
    const alpha = 0.05;
    let missed = 0;
    const paths = 20_000;
    for (let path = 0; path < paths; path++) {
      let sum = 0;
      for (let n = 1; n <= 200; n++) {
        sum += normal();
        const variance = 1 / n;
        const half = mixtureHalfWidth(variance, mixtureTuning(1 / 100, alpha), alpha);
        if (Math.abs(sum / n) > half) {
          missed++;
          break;
        }
      }
    }
    expect(missed / paths).toBeLessThanOrEqual(alpha);
  });

  it('is tightest near the information it is tuned for', () => {
    const tau2 = mixtureTuning(0.01, 0.05);
    const at = (v: number) => mixtureHalfWidth(v, tau2, 0.05) / Math.sqrt(v);
    expect(at(0.01)).toBeLessThan(at(0.1));
    expect(at(0.01)).toBeLessThan(at(0.0001));
  });
});
