// `portfolio.*`: figures across every store and per store, from the cache.
import type { Services } from '#shared/contract/index';
import type { Db } from '../db/types';
import type { DecisionRefresh } from '../decisions/refresh';
import { portfolio } from '../review/portfolio';

export function createPortfolioService(
  db: Db,
  clock: () => number,
  decisions?: Pick<DecisionRefresh, 'idle'>,
): Services['portfolio'] {
  return {
    async figures() {
      // Outcomes are read from the calls kept on the rows: any being made again are waited for.
      await decisions?.idle();
      return portfolio(db, clock());
    },
  };
}
