// The store's custom audiences in the cache: replaced whole by each complete list, and read for the
// audiences report.
import type { CustomAudience } from '#shared/api/index';
import { clearSetAside } from './set-aside';
import { read, write } from '../sql';
import type { Db } from '../types';
import { toJson } from '../values';

const DELETE_AUDIENCES = write<{ storeId: string }>(
  `DELETE FROM custom_audiences WHERE store_id = @storeId`,
);
const INSERT_AUDIENCE = write<{
  storeId: string;
  id: string;
  name: string;
  rulesJson: string;
  rawJson: string;
  syncedAt: string;
}>(`
  INSERT OR REPLACE INTO custom_audiences (store_id, id, name, rules_json, raw_json, synced_at)
  VALUES (@storeId, @id, @name, @rulesJson, @rawJson, @syncedAt)`);

/** Replaces the store's custom audiences with this complete list. */
export function replaceCustomAudiences(
  db: Db,
  list: { storeId: string; audiences: readonly CustomAudience[]; syncedAt: string },
): void {
  const { storeId, syncedAt } = list;
  db.transaction(() => {
    DELETE_AUDIENCES.run(db, { storeId });
    for (const audience of list.audiences) {
      INSERT_AUDIENCE.run(db, {
        storeId,
        id: audience.id,
        name: audience.name,
        rulesJson: JSON.stringify(audience.rules),
        rawJson: toJson(audience),
        syncedAt,
      });
      clearSetAside(db, storeId, 'audience', audience.id);
    }
  }).immediate();
}

/** A cached audience as the audiences report lists it, with how many cached tests (not removed) use it. */
export type AudienceReportRow = {
  storeName: string;
  storeId: string;
  id: string;
  rawJson: string;
  testCount: number;
};

const AUDIENCE_REPORT_ROWS = read<AudienceReportRow, { storeId: string | null }>(`
  SELECT s.name AS storeName, a.store_id AS storeId, a.id, a.raw_json AS rawJson,
         (SELECT count(*) FROM test_custom_audiences ta
            JOIN tests t ON t.store_id = ta.store_id AND t.id = ta.test_id AND t.removed = 0
          WHERE ta.store_id = a.store_id AND ta.audience_id = a.id) AS testCount
  FROM custom_audiences a JOIN stores s ON s.id = a.store_id
  WHERE @storeId IS NULL OR a.store_id = @storeId
  ORDER BY s.position, s.id, a.name COLLATE NOCASE, a.id`);

/** The cached audiences of a store (or of every store: null), in the stores' order, then by name. */
export function audienceReportRows(db: Db, storeId: string | null): AudienceReportRow[] {
  return AUDIENCE_REPORT_ROWS.all(db, { storeId });
}
