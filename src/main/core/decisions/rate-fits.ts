// What the cache keeps of a result's sides to learn a store's rate readings (results.rate_fits), and
// those fits read back for a store.
import type { TestResults } from '#shared/api/index';
import { RATE_NAMES, sideFits, type SideFits } from '#shared/domain/decisions/index';
import { storeRateFitsTexts } from '../db/cache/decisions';
import type { Db } from '../db/types';

/** What the cache keeps of a result's sides to learn the store's rate readings. */
export type RateFits = { control: SideFits; variant: SideFits };

export function rateFitsOf(results: TestResults): RateFits {
  return { control: sideFits(results.control), variant: sideFits(results.variant) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The rate fits of a store's results, two sides each. */
export function storeRateFits(db: Db, storeId: string): SideFits[] {
  const sides: SideFits[] = [];
  for (const text of storeRateFitsTexts(db, storeId)) {
    const value = parseJson(text);
    if (typeof value !== 'object' || value === null) continue;
    for (const side of ['control', 'variant'] as const) {
      const fits = (value as Record<string, unknown>)[side];
      if (typeof fits === 'object' && fits !== null) sides.push(sideFitsOf(fits));
    }
  }
  return sides;
}

/** Stored fits as SideFits: only lists of reading keys of the rates Splitbook knows. */
function sideFitsOf(value: object): SideFits {
  const out: SideFits = {};
  for (const rate of RATE_NAMES) {
    const keys = (value as Record<string, unknown>)[rate];
    if (Array.isArray(keys))
      out[rate] = keys.filter((key): key is string => typeof key === 'string');
  }
  return out;
}
