// `portfolio.*`: figures across every store and per store (statuses, outcomes, win rate, durations, counts).
import { z } from 'zod';
import { method, StoreId } from './common';

/** Ended tests are counted over this many days back from now. */
export const OUTCOME_WINDOW_DAYS = 90;

export const OUTCOME_DEFINITION =
  'An ended test (completed or cancelled) is counted by Splitbook\u2019s decision on its goal: won when the call is ' +
  '"Ship the variant", lost when it is "Keep the control", flat when it is "No meaningful difference", and ' +
  'inconclusive otherwise (cannot conclude, check the data first, still running, or no results). ' +
  'Splitbook\u2019s definition, made with your decision settings; the API states no outcome.';

const Count = z.object({ key: z.string(), label: z.string(), count: z.int() });
export type PortfolioCount = z.infer<typeof Count>;

export const PortfolioFigures = z.object({
  /** null: every store together. */
  storeId: StoreId.nullable(),
  storeName: z.string(),
  tests: z.int(),
  byStatus: z.array(Count),
  running: z.int(),
  /** Ended tests in the window by Splitbook's call on the goal (OUTCOME_DEFINITION); total = won + lost + flat + inconclusive. */
  ended: z.object({
    won: z.int(),
    lost: z.int(),
    flat: z.int(),
    inconclusive: z.int(),
    total: z.int(),
  }),
  /** won / ended in the window; null when none ended. */
  winRate: z.number().nullable(),
  /** Median days from start to end of tests ended in the window. */
  medianDurationDays: z.number().nullable(),
  startedPerMonth: z.array(z.object({ month: z.string(), count: z.int() })),
  /** Summed changeRevenue of the window's winners; per store only (stores may use different currencies). */
  winnersChangeRevenue: z.number().nullable(),
  byCampaign: z.array(Count),
  byTag: z.array(Count),
  bySurfaceArea: z.array(Count),
});
export type PortfolioFigures = z.infer<typeof PortfolioFigures>;

export const Portfolio = z.object({
  asOf: z.string(),
  windowDays: z.int(),
  total: PortfolioFigures,
  stores: z.array(PortfolioFigures),
});
export type Portfolio = z.infer<typeof Portfolio>;

export const portfolio = {
  figures: method(z.object({}).default({}), Portfolio),
};
