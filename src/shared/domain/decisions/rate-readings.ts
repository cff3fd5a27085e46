// Which reading of each rate fits a store's own counts. The API defines none of `cnv`, `cvr`, `ctr`
// or `acr`, nor whether a rate comes as a percent or a fraction; servers differ (one sends `cnv` as
// conversions per visit, another as a count of conversions; one `ctr` per visit, another per visitor).
// Splitbook learns, per store, the reading that fits its data, shows it, and calls counts
// contradictory only when no reading fits.
import { z } from 'zod';
import type { SideStatistics } from '../../api';

type CountField = 'conversions' | 'visitors' | 'visits' | 'clicks' | 'carts';

type Reading = {
  id: string;
  /** In words, for the store's details: "conversions per visit". */
  label: string;
  numerator: CountField;
  /** null: the rate is the count itself. */
  denominator: CountField | null;
};

/** Every reading Splitbook knows of each rate, the likeliest first (it wins a tie). */
export const RATE_READINGS = {
  cvr: [
    { id: 'conversions-per-visitor', label: 'conversions per visitor', numerator: 'conversions', denominator: 'visitors' },
    { id: 'conversions-per-visit', label: 'conversions per visit', numerator: 'conversions', denominator: 'visits' },
  ],
  cnv: [
    { id: 'conversions-per-visit', label: 'conversions per visit', numerator: 'conversions', denominator: 'visits' },
    { id: 'conversions-per-visitor', label: 'conversions per visitor', numerator: 'conversions', denominator: 'visitors' },
    { id: 'conversion-count', label: 'a count of conversions', numerator: 'conversions', denominator: null },
  ],
  ctr: [
    { id: 'clicks-per-visit', label: 'clicks per visit', numerator: 'clicks', denominator: 'visits' },
    { id: 'clicks-per-visitor', label: 'clicks per visitor', numerator: 'clicks', denominator: 'visitors' },
  ],
  acr: [
    { id: 'carts-per-visitor', label: 'carts per visitor', numerator: 'carts', denominator: 'visitors' },
    { id: 'carts-per-visit', label: 'carts per visit', numerator: 'carts', denominator: 'visits' },
  ],
} as const satisfies Record<string, readonly Reading[]>;

export type RateName = keyof typeof RATE_READINGS;
export const RATE_NAMES = Object.keys(RATE_READINGS) as RateName[];

export const RateScaleName = z.enum(['percent', 'fraction', 'count']);

/** One reading of a rate with its scale: "cnv: conversions per visit, in percent". */
export const RateFit = z.object({ reading: z.string(), scale: RateScaleName });
export type RateFit = z.infer<typeof RateFit>;

/** A rate may differ from its counts by this much (the API may round)… */
const ABSOLUTE_TOLERANCE = 0.01;
/** …plus this share of its value. */
const RELATIVE_TOLERANCE = 1e-3;

function matches(reported: number, expected: number): boolean {
  return Math.abs(reported - expected) <= ABSOLUTE_TOLERANCE + RELATIVE_TOLERANCE * Math.abs(expected);
}

/** Every reading (with its scale) under which the side's rate matches its counts; empty when none does. */
export function fitsOf(side: SideStatistics, rate: RateName): RateFit[] {
  const reported = side[rate];
  if (typeof reported !== 'number' || !Number.isFinite(reported)) return [];
  const fits: RateFit[] = [];
  for (const reading of RATE_READINGS[rate] as readonly Reading[]) {
    const numerator = side[reading.numerator];
    if (reading.denominator === null) {
      if (matches(reported, numerator)) fits.push({ reading: reading.id, scale: 'count' });
      continue;
    }
    const denominator = side[reading.denominator];
    const ratio = denominator > 0 ? numerator / denominator : 0;
    if (matches(reported, ratio * 100)) fits.push({ reading: reading.id, scale: 'percent' });
    if (matches(reported, ratio)) fits.push({ reading: reading.id, scale: 'fraction' });
  }
  return fits;
}

/** Whether a side says nothing about a rate's reading: all its counts zero fit every reading. */
function isSilent(side: SideStatistics, rate: RateName): boolean {
  return (RATE_READINGS[rate] as readonly Reading[]).every((reading) => side[reading.numerator] === 0) && side[rate] === 0;
}

export const LearntReading = z.object({
  rate: z.enum(['cvr', 'cnv', 'ctr', 'acr']),
  /** The reading that fits most sides, or null when no side fits any. */
  reading: z.string().nullable(),
  label: z.string().nullable(),
  scale: RateScaleName.nullable(),
  /** Sides it fits, of the sides that say something about it. */
  fits: z.number().int(),
  of: z.number().int(),
});
export type LearntReading = z.infer<typeof LearntReading>;

/** Per side, the key of every fitting reading of every rate: what the cache keeps to learn a store's readings. */
export type SideFits = Partial<Record<RateName, string[]>>;

const fitKey = (fit: RateFit): string => `${fit.reading}:${fit.scale}`;

/** The fits of one side, as kept per test in the cache (silent rates left out). */
export function sideFits(side: SideStatistics): SideFits {
  const out: SideFits = {};
  for (const rate of RATE_NAMES) {
    if (isSilent(side, rate)) continue;
    out[rate] = fitsOf(side, rate).map(fitKey);
  }
  return out;
}

/** A store's reading of each rate: the one that fits most of its sides (ties: the likeliest first). */
export function learnReadings(sides: readonly SideFits[]): LearntReading[] {
  return RATE_NAMES.map((rate) => {
    const counts = new Map<string, number>();
    let of = 0;
    for (const side of sides) {
      const keys = side[rate];
      if (keys === undefined) continue;
      of += 1;
      for (const key of new Set(keys)) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    let best: { key: string; n: number; order: number } | null = null;
    const order = (key: string): number => {
      const [reading, scale] = key.split(':');
      const index = (RATE_READINGS[rate] as readonly Reading[]).findIndex((r) => r.id === reading);
      return index * 3 + (scale === 'percent' ? 0 : scale === 'fraction' ? 1 : 2);
    };
    for (const [key, n] of counts) {
      if (best === null || n > best.n || (n === best.n && order(key) < best.order)) best = { key, n, order: order(key) };
    }
    if (best === null) return { rate, reading: null, label: null, scale: null, fits: 0, of };
    const [readingId, scale] = best.key.split(':');
    const reading = (RATE_READINGS[rate] as readonly Reading[]).find((r) => r.id === readingId);
    const parsedScale = RateScaleName.safeParse(scale);
    return {
      rate,
      reading: readingId ?? null,
      label: reading?.label ?? null,
      scale: parsedScale.success ? parsedScale.data : null,
      fits: best.n,
      of,
    };
  });
}

/** "cnv: a count of conversions; ctr: clicks per visitor (percent)". */
export function describeReadings(readings: readonly LearntReading[]): string {
  return readings
    .filter((r) => r.of > 0)
    .map((r) =>
      r.reading === null
        ? `${r.rate}: no reading fits`
        : `${r.rate}: ${r.label}${r.scale === 'count' ? '' : ` (${r.scale})`}${r.fits < r.of ? `, ${r.fits} of ${r.of} sides` : ''}`,
    )
    .join('; ');
}
