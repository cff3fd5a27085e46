// The cache's rows the outbox writes as local copies and reads back: a test's or campaign's record (the
// server's, or "server copy + pending edits"), tags and custom audiences (created here under a local id
// too), and the names an edit's ids resolve to. Rows only: what an edit does to them is core/outbox's.
import { Campaign, CustomAudience, Test, type DefaultAudience, type Tag } from '#shared/api/index';
import { read, write } from '../sql';
import type { Db } from '../types';
import { toJson } from '../values';
import { writeTestRow } from './tests';

function parsed<T>(
  schema: { safeParse(v: unknown): { success: boolean; data?: T } },
  json: string | undefined,
): T | null {
  if (json === undefined) return null;
  const result = schema.safeParse(JSON.parse(json));
  return result.success && result.data !== undefined ? result.data : null;
}

type StoreRecord = { storeId: string; id: string };

const TEST_RAW = read<{ raw: string }, StoreRecord>(
  `SELECT r.raw_json AS raw FROM tests t JOIN tests_raw r ON r.seq = t.seq WHERE t.store_id = @storeId AND t.id = @id`,
);
const CAMPAIGN_RAW = read<{ raw: string }, StoreRecord>(
  `SELECT raw_json AS raw FROM campaigns WHERE store_id = @storeId AND id = @id`,
);
const WRITE_CAMPAIGN = write<
  StoreRecord & { name: string; objective: string | null; goal: string | null; raw: string }
>(
  `UPDATE campaigns SET name = @name, objective = @objective, goal = @goal, raw_json = @raw WHERE store_id = @storeId AND id = @id`,
);
const SAVE_TAG = write<StoreRecord & { name: string }>(
  `INSERT INTO tags (store_id, id, name) VALUES (@storeId, @id, @name) ON CONFLICT (store_id, id) DO UPDATE SET name = excluded.name`,
);
const DELETE_TAG = write<StoreRecord>(`DELETE FROM tags WHERE store_id = @storeId AND id = @id`);
const TAGS_NAMED = read<Tag, { storeId: string; name: string }>(
  `SELECT id, name FROM tags WHERE store_id = @storeId AND lower(name) = lower(@name)`,
);
const TAG_BY_ID = read<Tag, StoreRecord>(
  `SELECT id, name FROM tags WHERE store_id = @storeId AND id = @id`,
);
const AUDIENCE_RAW = read<{ raw: string }, StoreRecord>(
  `SELECT raw_json AS raw FROM custom_audiences WHERE store_id = @storeId AND id = @id`,
);
const AUDIENCES_NAMED = read<{ raw: string }, { storeId: string; name: string }>(
  `SELECT raw_json AS raw FROM custom_audiences WHERE store_id = @storeId AND name = @name`,
);
const SAVE_AUDIENCE = write<
  StoreRecord & { name: string; rules: string; raw: string; syncedAt: string }
>(
  `INSERT OR REPLACE INTO custom_audiences (store_id, id, name, rules_json, raw_json, synced_at) VALUES (@storeId, @id, @name, @rules, @raw, @syncedAt)`,
);
const DELETE_AUDIENCE = write<StoreRecord>(
  `DELETE FROM custom_audiences WHERE store_id = @storeId AND id = @id`,
);
const DEFAULT_AUDIENCE = read<{ value: string }, StoreRecord>(
  `SELECT d.value FROM tests t JOIN tests_raw r ON r.seq = t.seq, json_each(r.raw_json, '$.defaultAudiences') d
   WHERE t.store_id = @storeId AND json_extract(d.value, '$.id') = @id LIMIT 1`,
);
const CAMPAIGN_NAME = read<{ name: string }, StoreRecord>(
  `SELECT name FROM campaigns WHERE store_id = @storeId AND id = @id`,
);

/** The cached test (server values, or the local copy when edits are pending). */
export function cachedTest(db: Db, storeId: string, testId: string): Test | null {
  return parsed<Test>(Test, TEST_RAW.get(db, { storeId, id: testId })?.raw);
}

export function cachedCampaign(db: Db, storeId: string, campaignId: string): Campaign | null {
  return parsed<Campaign>(Campaign, CAMPAIGN_RAW.get(db, { storeId, id: campaignId })?.raw);
}

/**
 * Rewrites a cached test with this record (the local copy, or the server's after a discard), its
 * tags and audiences included, without touching what the sync bookkeeps (seen-in-run, synced_at).
 * A test the cache does not hold is left alone: the next pull brings it and the rebase applies edits.
 */
export function writeLocalTest(db: Db, storeId: string, test: Test): void {
  writeTestRow(db, { storeId, test, rawJson: toJson(test), hadParts: true });
}

export function writeLocalCampaign(db: Db, storeId: string, campaign: Campaign): void {
  WRITE_CAMPAIGN.run(db, {
    storeId,
    id: campaign.id,
    name: campaign.name,
    objective: campaign.objective,
    goal: campaign.goal,
    raw: toJson(campaign),
  });
}

/** A tag known to the store (seen on a test, created here, or created offline with a local id). */
export function saveTag(db: Db, storeId: string, tag: Tag): void {
  SAVE_TAG.run(db, { storeId, id: tag.id, name: tag.name });
}

export function deleteTag(db: Db, storeId: string, tagId: string): void {
  DELETE_TAG.run(db, { storeId, id: tagId });
}

/** Tags of the store whose name matches case-insensitively (names are unique that way). */
export function tagsNamed(db: Db, storeId: string, name: string): Tag[] {
  return TAGS_NAMED.all(db, { storeId, name });
}

export function tagById(db: Db, storeId: string, tagId: string): Tag | null {
  return TAG_BY_ID.get(db, { storeId, id: tagId }) ?? null;
}

/** A custom audience as cached (a pending create's local copy included). */
export function audienceById(db: Db, storeId: string, id: string): CustomAudience | null {
  return parsed<CustomAudience>(CustomAudience, AUDIENCE_RAW.get(db, { storeId, id })?.raw);
}

export function audiencesNamed(db: Db, storeId: string, name: string): CustomAudience[] {
  return AUDIENCES_NAMED.all(db, { storeId, name }).flatMap(
    (row) => parsed<CustomAudience>(CustomAudience, row.raw) ?? [],
  );
}

export function saveAudience(
  db: Db,
  storeId: string,
  audience: CustomAudience,
  syncedAt: string,
): void {
  SAVE_AUDIENCE.run(db, {
    storeId,
    id: audience.id,
    name: audience.name,
    rules: JSON.stringify(audience.rules),
    raw: toJson(audience),
    syncedAt,
  });
}

export function deleteAudience(db: Db, storeId: string, id: string): void {
  DELETE_AUDIENCE.run(db, { storeId, id });
}

/** The default audiences seen on any cached test of the store (they cannot be listed). */
export function defaultAudienceById(db: Db, storeId: string, id: string): DefaultAudience | null {
  const row = DEFAULT_AUDIENCE.get(db, { storeId, id });
  return row ? (JSON.parse(row.value) as DefaultAudience) : null;
}

export function campaignName(db: Db, storeId: string, id: string): string | null {
  return CAMPAIGN_NAME.get(db, { storeId, id })?.name ?? null;
}
