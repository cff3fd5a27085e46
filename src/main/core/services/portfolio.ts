// `portfolio.*`: figures across every store and per store, from the cache.
import type { Services } from '../../../shared/contract';
import type { Db } from '../db';
import { portfolio } from '../review/portfolio';

export function createPortfolioService(db: Db, clock: () => number): Services['portfolio'] {
  return { figures: async () => portfolio(db, clock()) };
}
