// Writes of campaigns: the store's active campaigns, replaced whole by each complete list.
import type { Campaign } from '#shared/api/index';
import { clearSetAside } from './set-aside';
import { statement } from '../statements';
import type { Db } from '../types';
import { toJson } from '../values';

const DELETE_CAMPAIGNS = `DELETE FROM campaigns WHERE store_id = ?`;
const INSERT_CAMPAIGN = `
  INSERT OR REPLACE INTO campaigns (
    store_id, id, name, objective, goal, status, created_at,
    progress_total, progress_live, progress_paused, progress_draft, progress_ended, raw_json, synced_at
  ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Replaces the store's active campaigns with this complete list. */
export function replaceCampaigns(
  db: Db,
  list: { storeId: string; campaigns: readonly Campaign[]; syncedAt: string },
): void {
  const { storeId, syncedAt } = list;
  db.transaction(() => {
    statement(db, DELETE_CAMPAIGNS).run(storeId);
    for (const campaign of list.campaigns) {
      const { progress } = campaign;
      statement(db, INSERT_CAMPAIGN).run(
        storeId,
        campaign.id,
        campaign.name,
        campaign.objective,
        campaign.goal,
        campaign.status,
        campaign.createdAt,
        progress.total,
        progress.live,
        progress.paused,
        progress.draft,
        progress.ended,
        toJson(campaign),
        syncedAt,
      );
      clearSetAside(db, storeId, 'campaign', campaign.id);
    }
  }).immediate();
}
