// The store's active campaigns in the cache: replaced whole by each complete list, and read for the
// campaigns report.
import type { Campaign } from '#shared/api/index';
import { clearSetAside } from './set-aside';
import { read, write } from '../sql';
import type { Db } from '../types';
import { toJson } from '../values';

const DELETE_CAMPAIGNS = write<{ storeId: string }>(
  `DELETE FROM campaigns WHERE store_id = @storeId`,
);
/** A campaign's columns in the cache, as its statements bind and read them. */
type CampaignColumns = {
  storeId: string;
  id: string;
  name: string;
  objective: string | null;
  goal: string | null;
  status: string;
  createdAt: string;
  total: number;
  live: number;
  paused: number;
  draft: number;
  ended: number;
};

const INSERT_CAMPAIGN = write<CampaignColumns & { rawJson: string; syncedAt: string }>(`
  INSERT OR REPLACE INTO campaigns (
    store_id, id, name, objective, goal, status, created_at,
    progress_total, progress_live, progress_paused, progress_draft, progress_ended, raw_json, synced_at
  ) VALUES (@storeId, @id, @name, @objective, @goal, @status, @createdAt,
            @total, @live, @paused, @draft, @ended, @rawJson, @syncedAt)`);

/** Replaces the store's active campaigns with this complete list. */
export function replaceCampaigns(
  db: Db,
  list: { storeId: string; campaigns: readonly Campaign[]; syncedAt: string },
): void {
  const { storeId, syncedAt } = list;
  db.transaction(() => {
    DELETE_CAMPAIGNS.run(db, { storeId });
    for (const campaign of list.campaigns) {
      const { progress } = campaign;
      INSERT_CAMPAIGN.run(db, {
        storeId,
        id: campaign.id,
        name: campaign.name,
        objective: campaign.objective,
        goal: campaign.goal,
        status: campaign.status,
        createdAt: campaign.createdAt,
        total: progress.total,
        live: progress.live,
        paused: progress.paused,
        draft: progress.draft,
        ended: progress.ended,
        rawJson: toJson(campaign),
        syncedAt,
      });
      clearSetAside(db, storeId, 'campaign', campaign.id);
    }
  }).immediate();
}

/** A cached campaign as the campaigns report lists it. */
export type CampaignReportRow = CampaignColumns & { storeName: string };

const CAMPAIGN_REPORT_ROWS = read<CampaignReportRow, { storeId: string | null }>(`
  SELECT s.name AS storeName, c.store_id AS storeId, c.id, c.name, c.objective, c.goal, c.status,
         c.created_at AS createdAt, c.progress_total AS total, c.progress_live AS live,
         c.progress_paused AS paused, c.progress_draft AS draft, c.progress_ended AS ended
  FROM campaigns c JOIN stores s ON s.id = c.store_id
  WHERE @storeId IS NULL OR c.store_id = @storeId
  ORDER BY s.position, s.id, c.name COLLATE NOCASE, c.id`);

/** The cached campaigns of a store (or of every store: null), in the stores' order, then by name. */
export function campaignReportRows(db: Db, storeId: string | null): CampaignReportRow[] {
  return CAMPAIGN_REPORT_ROWS.all(db, { storeId });
}
