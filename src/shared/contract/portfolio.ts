// `portfolio.*`: figures across every store and per store (statuses, outcomes, win rate, durations, counts).
import { z } from 'zod';
import { method, StoreId } from './common';

/** Ended tests are counted over this many days back from now. */
export const OUTCOME_WINDOW_DAYS = 90;

export const OUTCOME_DEFINITION =
  'A test counts in the window by Splitbook\u2019s call on its goal, as the Learnings count it: won when the call is ' +
  '"Ship the variant" (recommended to ship), lost when it is "Keep the control", flat when it is "No meaningful ' +
  'difference", each when that call was made (its look\u2019s day) in the window, ' +
  'whatever the test\u2019s status now; an ended test (completed or cancelled) that ended in the window without such ' +
  'a call is inconclusive (cannot conclude, check the data first, still running, or no results). ' +
  'Win rate: recommended to ship \u00f7 concluded (the three calls). Splitbook\u2019s definition, made with your ' +
  'decision settings; the API states no outcome, nor whether a variant was shipped.';

const Count = z.object({ key: z.string(), label: z.string(), count: z.int() });
export type PortfolioCount = z.infer<typeof Count>;

export const PortfolioFigures = z.object({
  /** null: every store together. */
  storeId: StoreId.nullable(),
  storeName: z.string(),
  tests: z.int(),
  byStatus: z.array(Count),
  running: z.int(),
  /** Tests in the window by Splitbook's call on the goal (OUTCOME_DEFINITION); total = won + lost + flat + inconclusive. */
  ended: z.object({
    won: z.int(),
    lost: z.int(),
    flat: z.int(),
    inconclusive: z.int(),
    total: z.int(),
  }),
  /** won ÷ (won + lost + flat), the Learnings' win rate; null when none concluded in the window. */
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
