// What the portfolio counts of the cached tests: each test's status, dates, campaign, area and tags, with
// its kept call, the winners' revenue change and the day a concluding call was made.
import { read } from '../sql';
import type { Db } from '../types';

/** What the portfolio counts of one cached test (removed ones left out). */
export type PortfolioRow = {
  storeId: string;
  status: string;
  startAt: string | null;
  endAt: string | null;
  campaignId: string | null;
  campaignName: string | null;
  surfaceArea: string | null;
  tagNames: string;
  /** Splitbook's call on the goal (db/decisions.ts), null without one. */
  decision: string | null;
  /** The results' change in revenue, read for a test whose call is ship only (the winners' sum); else null. */
  changeRevenue: number | null;
  /** 'YYYY-MM-DD' of the day a concluding call was made (its look), else null. */
  decidedOn: string | null;
};

const PORTFOLIO_ROWS = read<PortfolioRow>(
  `SELECT t.store_id AS storeId, t.status, t.start_at AS startAt, t.end_at AS endAt,
          t.campaign_id AS campaignId, t.campaign_name AS campaignName, t.surface_area AS surfaceArea,
          t.tag_names AS tagNames, t.decision,
          CASE WHEN t.decision = 'ship' THEN
            (SELECT r.change_revenue FROM results r WHERE r.store_id = t.store_id AND r.test_id = t.id)
          END AS changeRevenue,
          CASE WHEN t.decision IN ('ship', 'keep_control', 'no_difference') THEN
            (SELECT d.look_date FROM tests_decision d WHERE d.seq = t.seq)
          END AS decidedOn
   FROM tests t
   WHERE t.removed = 0
   ORDER BY t.store_id, t.status, t.seq`,
);

/**
 * Every cached test the portfolio counts, by store, status and row (the order its counts meet labels
 * and its revenue sums in, read straight off tests_by_removed).
 */
export function portfolioRows(db: Db): PortfolioRow[] {
  return PORTFOLIO_ROWS.all(db);
}
