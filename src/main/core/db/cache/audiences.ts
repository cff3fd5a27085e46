// Writes of custom audiences: the store's list, replaced whole by each complete list.
import type { CustomAudience } from '#shared/api/index';
import { clearSetAside } from './set-aside';
import { statement } from '../statements';
import type { Db } from '../types';
import { toJson } from '../values';

const DELETE_AUDIENCES = `DELETE FROM custom_audiences WHERE store_id = ?`;
const INSERT_AUDIENCE = `
  INSERT OR REPLACE INTO custom_audiences (store_id, id, name, rules_json, raw_json, synced_at)
  VALUES (?, ?, ?, ?, ?, ?)`;

/** Replaces the store's custom audiences with this complete list. */
export function replaceCustomAudiences(
  db: Db,
  list: { storeId: string; audiences: readonly CustomAudience[]; syncedAt: string },
): void {
  const { storeId, syncedAt } = list;
  db.transaction(() => {
    statement(db, DELETE_AUDIENCES).run(storeId);
    for (const audience of list.audiences) {
      statement(db, INSERT_AUDIENCE).run(
        storeId,
        audience.id,
        audience.name,
        JSON.stringify(audience.rules),
        toJson(audience),
        syncedAt,
      );
      clearSetAside(db, storeId, 'audience', audience.id);
    }
  }).immediate();
}
